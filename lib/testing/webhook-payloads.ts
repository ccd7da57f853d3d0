import { db } from "@/lib/db/client";

/**
 * SPEC.md › Webhooks, INSTALL payload: its fields in SPEC.md's order, written from SPEC.md rather
 * than read from lib/webhooks, so a test compares what we send with what the spec says.
 */
export const installPayloadFields: readonly string[] = [
  "type",
  "appId",
  "versionId",
  "installType",
  "locationId",
  "companyId",
  "userId",
  "companyName",
  "isWhitelabelCompany",
  "whitelabelDetails",
  "timestamp",
  "webhookId",
];

/** The payloads of `appId`'s INSTALLATION_UPDATED events in the outbox, oldest first. */
export async function installationUpdatedEvents(appId: string): Promise<Record<string, unknown>[]> {
  const rows = await db().webhookEvent.findMany({
    where: { appId, type: "INSTALLATION_UPDATED" },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => row.payload as Record<string, unknown>);
}
