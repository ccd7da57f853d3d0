import type { Tx } from "@/lib/db/client";
import type { AuditAction, Prisma } from "@/lib/generated/prisma/client";

export interface AuditEntry {
  companyId: string;
  locationId?: string | null;
  actorUserId?: string | null;
  /** A private integration acting through the management API (then no person). */
  actorIntegrationId?: string | null;
  action: AuditAction;
  targetId?: string | null;
  /** Names and old/new values; never a token, secret or password. */
  details?: Prisma.InputJsonValue;
}

/** Writes an audit entry inside the transaction that makes the change. */
export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await tx.auditLog.create({ data: entry });
}
