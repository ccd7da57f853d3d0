import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";

/**
 * `count` agency-level integrations written in two statements (the lifecycle would take minutes
 * for hundreds), each with a current token, and `used` of them with requests this hour (the
 * first gets 1, the next 2, …). For the reads' tests of a 500-integration agency.
 */
export async function addBulkIntegrations(
  owner: { id: string; companyId: string },
  {
    count,
    used = 0,
    scopes = ["locations.readonly"],
    now = new Date(),
  }: {
    count: number;
    used?: number;
    scopes?: string[];
    now?: Date;
  },
): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `bulk-${i}-${randomBytes(4).toString("hex")}`);
  await db().privateIntegration.createMany({
    data: ids.map((id, i) => ({
      id,
      companyId: owner.companyId,
      name: `Bulk ${i}`,
      scopes,
      createdByUserId: owner.id,
    })),
  });
  await db().privateIntegrationToken.createMany({
    data: ids.map((integrationId) => ({
      integrationId,
      slot: "current" as const,
      tokenHash: randomBytes(32).toString("hex"),
      hint: `pit-…${randomBytes(2).toString("hex")}`,
    })),
  });
  const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
  await db().apiUsageHour.createMany({
    data: ids
      .slice(0, used)
      .map((subjectId, i) => ({ subjectType: "integration" as const, subjectId, hour, ok: i + 1 })),
  });
  return ids;
}
