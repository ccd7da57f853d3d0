import type { Actor } from "@/lib/accounts/permissions";
import { readShellFacts } from "@/lib/accounts/shell";
import {
  decideIntegrationAccess,
  type IntegrationAccess,
  type IntegrationOwner,
  ownerFactsOf,
  type ResolvedOwner,
} from "@/lib/integrations/access";
import { AUDIT_PAGE_SIZE, auditEntriesOf, type IntegrationAuditEntry } from "@/lib/integrations/audit-log";
import type { ListPage, ListQuery } from "@/lib/integrations/list-page";
import { readListPage } from "@/lib/integrations/list-page-read";
import { type PrivateIntegrationView, toView } from "@/lib/integrations/views";
import { ownerRequestsLast7Days } from "@/lib/usage/read";

/** Everything the Private Integrations screen shows, read for one render. */
export interface IntegrationsScreen {
  owner: ResolvedOwner;
  /** The page of the list `query` asks for, with the counts over every integration. */
  list: ListPage<PrivateIntegrationView>;
  /** `Requests (7 days)` by integration id (absent: none). */
  requests: Map<string, number>;
  /** The newest `AUDIT_PAGE_SIZE` entries of `Activity`, and whether there are more. */
  audit: { entries: IntegrationAuditEntry[]; more: boolean };
  maximumTokenLifetimeDays: number | null;
  /** The agency's sub-accounts, for `Sub-accounts` (agency level only). */
  subAccounts: { id: string; name: string }[];
}

/**
 * The screen's read in one round of queries: the access rule's facts, the list's page, `Activity`,
 * `Requests (7 days)` and the sub-accounts are asked for together, none waiting for another's
 * answer. Every query is bounded to the actor's own agency, so reading before the access is decided
 * reads nothing of anyone else; the rule then decides on the facts, and a refusal returns no data.
 * The database works out the page (search, filter, order), so only its rows are read.
 * `showingId`: a notification's link to one integration, whose page is read.
 */
export async function readIntegrationsScreen(
  actor: Actor,
  owner: IntegrationOwner,
  now: Date,
  query: ListQuery,
  showingId?: string,
): Promise<{ ok: true; screen: IntegrationsScreen } | Extract<IntegrationAccess, { ok: false }>> {
  const where = {
    companyId: actor.companyId,
    locationId: owner.level === "location" ? owner.locationId : null,
  };
  // The shell's facts (the agency, its sub-accounts, Labs) are the layout's read, shared.
  const [shell, list, audit, requests] = await Promise.all([
    readShellFacts(actor.companyId, actor.id),
    readListPage(where, query, now, showingId),
    auditEntriesOf(where, { limit: AUDIT_PAGE_SIZE + 1 }),
    ownerRequestsLast7Days(where, now),
  ]);
  const facts = ownerFactsOf(actor, owner, {
    company: shell && { name: shell.companyName, maximumTokenLifetimeDays: shell.maximumTokenLifetimeDays },
    location: owner.level === "location" ? shell?.locations.find((l) => l.id === owner.locationId) : undefined,
    labsOn: shell?.privateIntegrationsLab ?? false,
  });
  const access = decideIntegrationAccess(actor, facts);
  if (!access.ok) return access;
  return {
    ok: true,
    screen: {
      owner: access.owner,
      list: { ...list.page, rows: list.page.rows.map((row) => toView(row, now, list.creators)) },
      requests,
      audit: { entries: audit.slice(0, AUDIT_PAGE_SIZE), more: audit.length > AUDIT_PAGE_SIZE },
      maximumTokenLifetimeDays: facts.maximumTokenLifetimeDays,
      // As `listSubAccountOptions` lists them: the first 1,000 by name.
      subAccounts:
        access.owner.level === "agency"
          ? (shell?.locations ?? []).slice(0, 1000).map(({ id, name }) => ({ id, name }))
          : [],
    },
  };
}
