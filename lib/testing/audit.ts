import { db } from "@/lib/db/client";

/** The audit entries about `targetId` (a person, an integration, …), oldest first: each action and who did it. */
export async function auditTrail(targetId: string): Promise<{ action: string; actorUserId: string | null }[]> {
  const rows = await db().auditLog.findMany({ where: { targetId }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => ({ action: row.action, actorUserId: row.actorUserId }));
}
