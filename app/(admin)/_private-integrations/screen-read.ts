import type { Actor } from "@/lib/accounts/permissions";
import {
  decideIntegrationAccess,
  type IntegrationAccess,
  type IntegrationOwner,
  type ResolvedOwner,
  readOwnerFacts,
} from "@/lib/integrations/access";
import { AUDIT_PAGE_SIZE, auditEntriesOf, type IntegrationAuditEntry } from "@/lib/integrations/audit-log";
import { listSubAccountOptions } from "@/lib/integrations/read";
import { integrationRowsOf } from "@/lib/integrations/rows";
import { type PrivateIntegrationView, toView } from "@/lib/integrations/views";
import { ownerRequestsLast7Days } from "@/lib/usage/read";

/** Everything the Private Integrations screen shows, read for one render. */
export interface IntegrationsScreen {
  owner: ResolvedOwner;
  integrations: PrivateIntegrationView[];
  /** `Requests (7 days)` by integration id (absent: none). */
  requests: Map<string, number>;
  /** The newest `AUDIT_PAGE_SIZE` entries of `Activity`, and whether there are more. */
  audit: { entries: IntegrationAuditEntry[]; more: boolean };
  maximumTokenLifetimeDays: number | null;
  /** The agency's sub-accounts, for `Sub-accounts` (agency level only). */
  subAccounts: { id: string; name: string }[];
}

/**
 * The screen's read in one round of queries: the access rule's facts, the list, `Activity`,
 * `Requests (7 days)` and the sub-accounts are asked for together, none waiting for another's
 * answer. Every query is bounded to the actor's own agency, so reading before the access is decided
 * reads nothing of anyone else; the rule then decides on the facts, and a refusal returns no data.
 */
export async function readIntegrationsScreen(
  actor: Actor,
  owner: IntegrationOwner,
  now: Date,
): Promise<{ ok: true; screen: IntegrationsScreen } | Extract<IntegrationAccess, { ok: false }>> {
  const where = {
    companyId: actor.companyId,
    locationId: owner.level === "location" ? owner.locationId : null,
  };
  const [facts, list, audit, requests, subAccounts] = await Promise.all([
    readOwnerFacts(actor, owner),
    integrationRowsOf(where),
    auditEntriesOf(where, { limit: AUDIT_PAGE_SIZE + 1 }),
    ownerRequestsLast7Days(where, now),
    owner.level === "agency"
      ? listSubAccountOptions({ level: "agency", companyId: actor.companyId, locationId: null, name: "" })
      : [],
  ]);
  const access = decideIntegrationAccess(actor, facts);
  if (!access.ok) return access;
  return {
    ok: true,
    screen: {
      owner: access.owner,
      integrations: list.rows.map((row) => toView(row, now, list.creators)),
      requests,
      audit: { entries: audit.slice(0, AUDIT_PAGE_SIZE), more: audit.length > AUDIT_PAGE_SIZE },
      maximumTokenLifetimeDays: facts.maximumTokenLifetimeDays,
      subAccounts,
    },
  };
}
