import { cache } from "react";
import { runHotStatement } from "@/lib/db/hot-statement";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * What every signed-in page shows around itself, and what the screens read beside it, in one
 * statement per request: the agency's name and `Maximum token lifetime`, its sub-accounts, the
 * person's unread reminders and whether Private Integrations is on in Labs. The (admin) layout and
 * the page both ask; React's cache makes that one query, as `getSignedIn` does for the person.
 */
export interface ShellFacts {
  companyName: string;
  maximumTokenLifetimeDays: number | null;
  /** The agency's sub-accounts, by name (then id), as `listLocations` orders them. */
  locations: { id: string; companyId: string; name: string }[];
  /** The person's unread notifications. */
  unread: number;
  /** `private_integrations` in the agency's Labs (off unless turned on). */
  privateIntegrationsLab: boolean;
}

/** Null when the agency is gone. */
export const readShellFacts = cache(async (companyId: string, userId: string): Promise<ShellFacts | null> => {
  const statement = Prisma.sql`
    SELECT c.name AS "companyName", c."maximumTokenLifetimeDays",
      COALESCE((SELECT json_agg(json_build_object('id', l.id, 'companyId', l."companyId", 'name', l.name)
        ORDER BY l.name, l.id) FROM "Location" l WHERE l."companyId" = c.id), '[]') AS locations,
      (SELECT count(*) FROM "Notification" n WHERE n."userId" = ${userId} AND n."readAt" IS NULL)::int4 AS unread,
      COALESCE((SELECT f.enabled FROM "LabsFeature" f
        WHERE f."companyId" = c.id AND f.feature = 'private_integrations'), false) AS "privateIntegrationsLab"
    FROM "Company" c WHERE c.id = ${companyId}`;
  // Straight on the pool, prepared (lib/db/hot-statement.ts): every signed-in page reads it.
  const [row] = await runHotStatement<ShellFacts>(statement.text, statement.values);
  return row ?? null;
});
