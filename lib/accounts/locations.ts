import { db } from "@/lib/db/client";
import { cachedRead, peekCachedRead } from "@/lib/db/read-cache";

export interface LocationRow {
  id: string;
  companyId: string;
  name: string;
  createdAt: Date;
}

/** A sub-account by id, from the read cache or one indexed read (lib/locations/get-location.ts says when it is emptied). */
export function findLocation(locationId: string): Promise<LocationRow | undefined> {
  return cachedRead(
    locationKey(locationId),
    () => readLocation(locationId),
    (found) => found !== undefined,
  );
}

/** findLocation's row when the read cache holds it (no promise), else undefined. */
export function cachedLocation(locationId: string): LocationRow | undefined {
  return peekCachedRead<LocationRow>(locationKey(locationId))?.value;
}

function locationKey(locationId: string): string {
  return `location:${locationId}`;
}

async function readLocation(locationId: string): Promise<LocationRow | undefined> {
  const rows = await db().$queryRaw<LocationRow[]>`
    SELECT id, "companyId", name, "createdAt" FROM "Location" WHERE id = ${locationId}`;
  return rows[0];
}
