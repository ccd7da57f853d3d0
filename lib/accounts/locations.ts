import { db } from "@/lib/db/client";
import { cachedRead } from "@/lib/db/read-cache";

export interface LocationRow {
  id: string;
  companyId: string;
  name: string;
  createdAt: Date;
}

/** A sub-account by id, from the read cache or one indexed read (lib/locations/get-location.ts says when it is emptied). */
export function findLocation(locationId: string): Promise<LocationRow | undefined> {
  return cachedRead(
    `location:${locationId}`,
    () => readLocation(locationId),
    (found) => found !== undefined,
  );
}

async function readLocation(locationId: string): Promise<LocationRow | undefined> {
  const rows = await db().$queryRaw<LocationRow[]>`
    SELECT id, "companyId", name, "createdAt" FROM "Location" WHERE id = ${locationId}`;
  return rows[0];
}
