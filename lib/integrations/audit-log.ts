import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { type AuditAction, Prisma } from "@/lib/generated/prisma/client";
import { type IntegrationOwner, requireIntegrationAccess } from "./access";
import { type LifecycleKind, lifecycleActions } from "./catalog";

type LifecycleAuditAction = (typeof lifecycleActions)[LifecycleKind]["audit"]["action"];

/** Every audit action of an integration: create and edit, the catalogue's lifecycle actions, and the rest. */
export const integrationAuditActions = [
  "private_integration_created",
  "private_integration_updated",
  ...Object.values(lifecycleActions).map((action): LifecycleAuditAction => action.audit.action),
  "private_integration_maximum_lifetime_changed",
  "private_integration_revoked_as_leaked",
] as const satisfies readonly AuditAction[];
export type IntegrationAuditAction =
  | Exclude<(typeof integrationAuditActions)[number], LifecycleAuditAction>
  | LifecycleAuditAction;

/** How the audit view names each action (the lifecycle actions' labels are the catalogue's). */
export const integrationAuditLabels: Record<IntegrationAuditAction, string> = {
  private_integration_created: "Created",
  private_integration_updated: "Edited",
  ...(Object.fromEntries(Object.values(lifecycleActions).map(({ audit }) => [audit.action, audit.label])) as Record<
    (typeof lifecycleActions)[LifecycleKind]["audit"]["action"],
    string
  >),
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

/** How many entries the screens' `Activity` and an integration's history show at a time. */
export const AUDIT_PAGE_SIZE = 20;

/** Where a page of entries ends: the next page starts after this entry (newest first). */
export interface AuditCursor {
  at: Date;
  id: string;
}

/**
 * One page of the audit trail, newest first, after `before` when given: `AUDIT_PAGE_SIZE` entries
 * and whether there are more, read as one row more than shown (the screens never list without bound).
 */
export async function listAuditPage(
  actor: Actor,
  owner: IntegrationOwner,
  options: { integrationId?: string; before?: AuditCursor } = {},
): Promise<{ entries: IntegrationAuditEntry[]; more: boolean }> {
  const rows = await listAuditLog(actor, owner, { ...options, limit: AUDIT_PAGE_SIZE + 1 });
  return { entries: rows.slice(0, AUDIT_PAGE_SIZE), more: rows.length > AUDIT_PAGE_SIZE };
}

/** The private-integration audit trail of an agency (agency level) or of one sub-account, newest first. */
export async function listAuditLog(
  actor: Actor,
  owner: IntegrationOwner,
  options: AuditReadOptions = {},
): Promise<IntegrationAuditEntry[]> {
  const resolved = await requireIntegrationAccess(actor, owner);
  return auditEntriesOf(resolved, options);
}

export interface AuditReadOptions {
  integrationId?: string;
  limit?: number;
  before?: AuditCursor;
}

interface AuditRow {
  id: string;
  action: IntegrationAuditAction;
  createdAt: Date;
  targetId: string | null;
  details: unknown;
  actorUserId: string | null;
  actorIntegrationId: string | null;
  actorName: string | null;
  actorEmail: string | null;
  actorRemoved: boolean | null;
  actorIntegrationName: string | null;
}

/**
 * The entries of an owner whose access was checked, with the names of who acted joined in: one
 * statement, so the screen reads them beside everything else in one round.
 */
export async function auditEntriesOf(
  owner: { companyId: string; locationId: string | null },
  options: AuditReadOptions = {},
): Promise<IntegrationAuditEntry[]> {
  const { integrationId, before } = options;
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 500);
  const rows = await db().$queryRaw<AuditRow[]>`
    SELECT a.id, a.action::text AS action, a."createdAt", a."targetId", a.details, a."actorUserId",
      a."actorIntegrationId", u.name AS "actorName", u.email AS "actorEmail",
      (u."removedAt" IS NOT NULL) AS "actorRemoved", ai.name AS "actorIntegrationName"
    FROM "AuditLog" a
    LEFT JOIN "User" u ON u.id = a."actorUserId" AND u."companyId" = a."companyId"
    LEFT JOIN "PrivateIntegration" ai ON ai.id = a."actorIntegrationId" AND ai."companyId" = a."companyId"
    WHERE a."companyId" = ${owner.companyId} AND a."locationId" IS NOT DISTINCT FROM ${owner.locationId}
      AND a.action::text = ANY(${[...integrationAuditActions]}::text[])
      ${integrationId ? Prisma.sql`AND a."targetId" = ${integrationId}` : Prisma.empty}
      ${
        // Strictly after the cursor in (createdAt, id) order: entries of the same instant are neither repeated nor skipped.
        before
          ? Prisma.sql`AND (a."createdAt", a.id) < (${before.at.toISOString()}::timestamp(3), ${before.id})`
          : Prisma.empty
      }
    ORDER BY a."createdAt" DESC, a.id DESC
    LIMIT ${limit}`;
  return rows.map((row) => {
    const details =
      row.details && typeof row.details === "object" && !Array.isArray(row.details)
        ? (row.details as Record<string, unknown>)
        : {};
    const action = row.action;
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
      actor:
        row.actorUserId && row.actorName !== null
          ? {
              id: row.actorUserId,
              name: row.actorName,
              email: row.actorEmail ?? "",
              removed: Boolean(row.actorRemoved),
            }
          : null,
      actorIntegration: row.actorIntegrationId ? { id: row.actorIntegrationId, name: row.actorIntegrationName } : null,
      details,
    };
  });
}
