import { membersById } from "@/lib/accounts/users";
import { db, type Tx } from "@/lib/db/client";
import { forbidden, notFound } from "@/lib/refusal";
import {
  type IntegrationOwner,
  isIntegrationActor,
  type LifecycleActor,
  type ResolvedOwner,
  requireIntegrationAccess,
} from "./access";
import { ALL_SUB_ACCOUNTS } from "./guard-rails";
import { subAccountsWithin } from "./no-escalation";
import { integrationRowsOf, tokenSelect } from "./rows";
import { type IntegrationRow, type PrivateIntegrationView, type TeamMemberName, toView } from "./views";

/** Reading private integrations for the screens: the rows of one owner, and their views. */

export const liveSlots = { where: { slot: { not: null } }, select: tokenSelect } as const;
/** What a view needs besides the integration's columns: its live tokens and chosen sub-accounts. */
export const integrationInclude = {
  tokens: liveSlots,
  chosenLocations: {
    select: { locationId: true, location: { select: { name: true } } },
    orderBy: { location: { name: "asc" } },
  },
} as const;

export function ownerWhere(owner: ResolvedOwner) {
  return { companyId: owner.companyId, locationId: owner.locationId };
}

/** The names of the agency's integrations among `ids` (a deleted one is left out): actors named on screen. */
export async function integrationNamesById(
  companyId: string,
  ids: string[],
  client: Tx = db(),
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await client.privateIntegration.findMany({
    where: { companyId, id: { in: [...new Set(ids)] } },
    select: { id: true, name: true },
  });
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Who created the rows: people of the agency, and integrations that created through the management API. */
async function creatorsOf(
  companyId: string,
  rows: IntegrationRow[],
  client: Tx = db(),
): Promise<Map<string, TeamMemberName>> {
  const integrationIds = [
    ...new Set(rows.flatMap((r) => (r.createdByIntegrationId ? [r.createdByIntegrationId] : []))),
  ];
  const [members, integrations] = await Promise.all([
    membersById(
      companyId,
      rows.map((r) => r.createdByUserId).filter((id): id is string => id !== null),
      client,
    ),
    integrationNamesById(companyId, integrationIds, client),
  ]);
  return new Map([
    ...[...members].map(([id, { name, removed }]) => [id, { id, name, removed }] as const),
    ...[...integrations].map(([id, name]) => [id, { id, name, removed: false, integration: true as const }] as const),
  ]);
}

/** One row's view; `client`: a transaction's, for an answer written in it (idempotency.ts). */
export async function viewOf(
  owner: ResolvedOwner,
  row: IntegrationRow,
  now: Date,
  client: Tx = db(),
): Promise<PrivateIntegrationView> {
  return toView(row, now, await creatorsOf(owner.companyId, [row], client));
}

export const notFoundMessage =
  "This private integration does not exist here any more; reload the page to see the current list.";

/**
 * SPEC.md: an integration limited to chosen Sub-accounts sees only integrations within them (an
 * agency integration whose Sub-accounts are some of them, or a sub-account integration of one),
 * in the list and one by one (its usage too): it could act on no other, and what reaches a
 * sub-account it does not is none of its business. People and other integrations see every one.
 */
export function isVisibleTo(
  actor: LifecycleActor,
  row: Pick<IntegrationRow, "locationId" | "allSubAccounts" | "chosenLocations">,
): boolean {
  if (!isIntegrationActor(actor) || !actor.allowedLocationIds) return true;
  return subAccountsWithin(
    { locationId: null, subAccounts: { all: false, locationIds: [...actor.allowedLocationIds] } },
    {
      locationId: row.locationId,
      subAccounts: row.allSubAccounts
        ? ALL_SUB_ACCOUNTS
        : { all: false, locationIds: row.chosenLocations.map((c) => c.locationId) },
    },
  );
}

/** What an integration limited to chosen Sub-accounts hears for one outside them: the rule, not "not found". */
export const notVisibleMessage =
  "This integration is limited to chosen Sub-accounts, so it sees and acts on only integrations within them: a sub-account integration of one of them, or an agency integration whose Sub-accounts are some of them. This one reaches others; ask a person to see or change it on the Private Integrations screen.";

/** The integrations of an agency (agency level only) or of one sub-account, newest first. */
export async function listPrivateIntegrations(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  now: Date = new Date(),
): Promise<PrivateIntegrationView[]> {
  const resolved = await requireIntegrationAccess(actor, owner, "read");
  const { rows, creators } = await integrationRowsOf(ownerWhere(resolved));
  // Filtered here, not in SQL: one rule (isVisibleTo) for the list and the single read.
  return rows.filter((row) => isVisibleTo(actor, row)).map((row) => toView(row, now, creators));
}

export async function getPrivateIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner, "read");
  const row = await db().privateIntegration.findFirst({
    where: { id: integrationId, ...ownerWhere(resolved) },
    include: integrationInclude,
  });
  if (!row) throw notFound(notFoundMessage);
  if (!isVisibleTo(actor, row)) throw forbidden(notVisibleMessage);
  return viewOf(resolved, row, now);
}

/** The agency's `Maximum token lifetime` as the screens show it (both levels), or null for none. */
export async function readMaximumTokenLifetime(companyId: string): Promise<number | null> {
  const company = await db().company.findUnique({
    where: { id: companyId },
    select: { maximumTokenLifetimeDays: true },
  });
  return company?.maximumTokenLifetimeDays ?? null;
}

/** The agency's sub-accounts by name, for the `Sub-accounts` choice of an owner already checked. */
export async function listSubAccountOptions(owner: ResolvedOwner): Promise<{ id: string; name: string }[]> {
  if (owner.level !== "agency") return [];
  return db().location.findMany({
    where: { companyId: owner.companyId },
    select: { id: true, name: true },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    take: 1000,
  });
}
