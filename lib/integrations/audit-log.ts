import type { Actor } from "@/lib/accounts/permissions";
import { membersById } from "@/lib/accounts/users";
import { db } from "@/lib/db/client";
import type { AuditAction } from "@/lib/generated/prisma/client";
import { type IntegrationOwner, requireIntegrationAccess } from "./access";
import { integrationNamesById } from "./read";

export const integrationAuditActions = [
  "private_integration_created",
  "private_integration_updated",
  "private_integration_rotated_later",
  "private_integration_rotated_now",
  "private_integration_old_token_expired",
  "private_integration_rotation_cancelled",
  "private_integration_deleted",
  "private_integration_maximum_lifetime_changed",
  "private_integration_revoked_as_leaked",
] as const satisfies readonly AuditAction[];
export type IntegrationAuditAction = (typeof integrationAuditActions)[number];

/** How the audit view names each action. */
export const integrationAuditLabels: Record<IntegrationAuditAction, string> = {
  private_integration_created: "Created",
  private_integration_updated: "Edited",
  private_integration_rotated_later: "Rotated, old token expires later",
  private_integration_rotated_now: "Rotated, old token expired at once",
  private_integration_old_token_expired: "Old token expired now",
  private_integration_rotation_cancelled: "Rotation cancelled",
  private_integration_deleted: "Deleted",
  private_integration_maximum_lifetime_changed: "Maximum token lifetime changed",
  private_integration_revoked_as_leaked: "Revoked: reported as leaked",
};

export interface IntegrationAuditEntry {
  id: string;
  action: IntegrationAuditAction;
  label: string;
  at: Date;
  integrationId: string | null;
  /** The integration's name when the entry was written. */
  integrationName: string;
  /** `removed` once they were removed from the team. */
  actor: { id: string; name: string; email: string; removed: boolean } | null;
  /** The private integration that acted through the management API; its name as it is now, null once deleted. */
  actorIntegration: { id: string; name: string | null } | null;
  /** Non-secret details: names, scopes, token hints (`pit-…abcd`), the old token's expiry. */
  details: Record<string, unknown>;
}

/** The private-integration audit trail of an agency (agency level) or of one sub-account, newest first. */
export async function listAuditLog(
  actor: Actor,
  owner: IntegrationOwner,
  options: { integrationId?: string; limit?: number } = {},
): Promise<IntegrationAuditEntry[]> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const rows = await db().auditLog.findMany({
    where: {
      companyId: resolved.companyId,
      locationId: resolved.locationId,
      action: { in: [...integrationAuditActions] },
      ...(options.integrationId ? { targetId: options.integrationId } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(options.limit ?? 100, 1), 500),
  });
  const byId = await membersById(
    resolved.companyId,
    rows.map((r) => r.actorUserId).filter((id): id is string => Boolean(id)),
  );
  const integrationNames = await integrationNamesById(
    resolved.companyId,
    rows.map((r) => r.actorIntegrationId).filter((id): id is string => Boolean(id)),
  );
  return rows.map((row) => {
    const details =
      row.details && typeof row.details === "object" && !Array.isArray(row.details)
        ? (row.details as Record<string, unknown>)
        : {};
    const action = row.action as IntegrationAuditAction;
    return {
      id: row.id,
      action,
      label: integrationAuditLabels[action],
      at: row.createdAt,
      integrationId: row.targetId,
      integrationName:
        action === "private_integration_maximum_lifetime_changed"
          ? "All integrations"
          : typeof details.name === "string"
            ? details.name
            : "",
      actor: row.actorUserId ? (byId.get(row.actorUserId) ?? null) : null,
      actorIntegration: row.actorIntegrationId
        ? { id: row.actorIntegrationId, name: integrationNames.get(row.actorIntegrationId) ?? null }
        : null,
      details,
    };
  });
}
