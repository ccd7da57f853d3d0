import type { Tx } from "@/lib/db/client";
import { checkAllFields, invalid } from "@/lib/refusal";
import type { ScopeLevel } from "@/lib/scopes";
import { checkExpiry, expiresDateOf, parseExpiresDate } from "./expiry";
import { parseAllowlist } from "./ip-allowlist";
import type { GuardRailsInput } from "./schemas";

/**
 * The guard rails of a private integration (SPEC.md › Private integration tokens): `Expires` and
 * the agency's `Maximum token lifetime`, `Sub-accounts`, `Allowed IP addresses`, and the overlap of
 * `Rotate and expire this token later`. Every rule here takes the clock as `now` and says in its
 * message what to do; the create and edit forms show it beside the named field. The checks made on
 * every request are in verify.ts (expiry, address) and lib/locations/get-location.ts (sub-accounts),
 * with the refusals below.
 */

export * from "./expiry";

// ---------------------------------------------------------------------------------------------
// Sub-accounts

/** `All sub-accounts` (including ones created later) or the chosen ones only. */
export type SubAccountSelection = { all: true } | { all: false; locationIds: string[] };

export const ALL_SUB_ACCOUNTS: SubAccountSelection = { all: true };

/** The most sub-accounts one integration may name (the form lists them as checkboxes). */
export const MAX_CHOSEN_SUB_ACCOUNTS = 1000;

/**
 * Checks a selection: sub-account integrations always cover their own sub-account (only `all`), an
 * agency integration's chosen ids must be sub-accounts of the agency (`agencyLocationIds`, the ones
 * that exist), at least one. Returns it de-duplicated.
 */
export function checkSubAccountSelection(
  selection: SubAccountSelection,
  level: ScopeLevel,
  agencyLocationIds: readonly string[],
  field = "subAccounts",
): SubAccountSelection {
  if (selection.all) return ALL_SUB_ACCOUNTS;
  if (level !== "agency") {
    throw invalid(
      "Sub-accounts can be chosen only for agency integrations; this one belongs to one sub-account.",
      field,
    );
  }
  const ids = [...new Set(selection.locationIds)];
  if (ids.length === 0) throw invalid("Choose at least one sub-account, or All sub-accounts.", field);
  if (ids.length > MAX_CHOSEN_SUB_ACCOUNTS) {
    throw invalid(`Choose at most ${MAX_CHOSEN_SUB_ACCOUNTS} sub-accounts, or All sub-accounts.`, field);
  }
  const known = new Set(agencyLocationIds);
  if (ids.some((id) => !known.has(id))) {
    throw invalid(
      "A chosen sub-account is not one of this agency's (it may have been deleted); reload the page and choose again.",
      field,
    );
  }
  return { all: false, locationIds: ids };
}

/** `checkSubAccountSelection` against the agency's sub-accounts as they are in `tx`. */
export async function resolveSubAccountSelection(
  tx: Tx,
  companyId: string,
  level: ScopeLevel,
  selection: SubAccountSelection,
): Promise<SubAccountSelection> {
  if (selection.all || level !== "agency") return checkSubAccountSelection(selection, level, []);
  const ids = [...new Set(selection.locationIds)];
  const found =
    ids.length > 0 && ids.length <= MAX_CHOSEN_SUB_ACCOUNTS
      ? await tx.location.findMany({ where: { companyId, id: { in: ids } }, select: { id: true } })
      : [];
  return checkSubAccountSelection(
    { all: false, locationIds: ids },
    level,
    found.map((l) => l.id),
  );
}

// ---------------------------------------------------------------------------------------------
// All of them, as the create and edit forms send them

export interface GuardRails {
  expiresAt: Date | null;
  subAccounts: SubAccountSelection;
  /** Normalised entries (lib/integrations/ip-allowlist.ts); empty: every address. */
  allowedIpAddresses: string[];
}

export const NO_GUARD_RAILS: GuardRails = { expiresAt: null, subAccounts: ALL_SUB_ACCOUNTS, allowedIpAddresses: [] };

/** The `Allowed IP addresses` field as stored entries, or a field error naming the bad line. */
export function parseAllowedIpAddresses(text: string | null | undefined, field = "allowedIpAddresses"): string[] {
  const parsed = parseAllowlist(text ?? "");
  if (!parsed.ok) throw invalid(parsed.message, field);
  return parsed.entries;
}

/**
 * Writes checked guard rails on an integration inside the caller's transaction (which must run under
 * `changeCachedState`, as every lifecycle change does): the columns, and the chosen sub-accounts
 * replaced. The token does not change. The triggers of migration `private_integration_guard_rails`
 * empty every instance's read cache when it commits.
 */
export async function writeGuardRails(tx: Tx, integrationId: string, rails: GuardRails): Promise<void> {
  await tx.privateIntegration.update({
    where: { id: integrationId },
    data: {
      expiresAt: rails.expiresAt,
      allSubAccounts: rails.subAccounts.all,
      allowedIpAddresses: rails.allowedIpAddresses,
    },
  });
  await tx.privateIntegrationLocation.deleteMany({ where: { integrationId } });
  if (!rails.subAccounts.all) {
    await tx.privateIntegrationLocation.createMany({
      data: rails.subAccounts.locationIds.map((locationId) => ({ integrationId, locationId })),
    });
  }
}

/** The guard rails of an integration as stored, for the edit form and audit entries. */
export async function readGuardRails(tx: Tx, integrationId: string): Promise<GuardRails> {
  const row = await tx.privateIntegration.findUniqueOrThrow({
    where: { id: integrationId },
    select: {
      expiresAt: true,
      allSubAccounts: true,
      allowedIpAddresses: true,
      chosenLocations: { select: { locationId: true }, orderBy: { locationId: "asc" } },
    },
  });
  return {
    expiresAt: row.expiresAt,
    subAccounts: row.allSubAccounts
      ? ALL_SUB_ACCOUNTS
      : { all: false, locationIds: row.chosenLocations.map((c) => c.locationId) },
    allowedIpAddresses: row.allowedIpAddresses,
  };
}

/**
 * The guard rails a create or edit form asks for, checked: `stored` is what the integration has
 * (NO_GUARD_RAILS on Create), and a field the form left out keeps it. `Expires` is checked against
 * the clock and the agency's maximum (`maximumLifetimeDays`) on Create and whenever Edit changes
 * it, so renaming an integration whose date lies within the rules never asks for a new date.
 */
export async function guardRailsFromInput(
  tx: Tx,
  owner: { companyId: string; level: ScopeLevel },
  input: GuardRailsInput,
  stored: GuardRails | null,
  maximumLifetimeDays: number | null,
  now: Date,
): Promise<GuardRails> {
  const base = stored ?? NO_GUARD_RAILS;
  let expiresAt = base.expiresAt;
  const expiresText = input.expires ?? (stored ? undefined : "");
  let allowedIpAddresses = base.allowedIpAddresses;
  let subAccounts = base.subAccounts;
  // Every refused guard rail at once, each beside its field, in the form's order.
  await checkAllFields([
    () => {
      if (expiresText === undefined) return;
      const asked = parseExpiresDate(expiresText);
      const changed = (asked?.getTime() ?? null) !== (base.expiresAt?.getTime() ?? null);
      expiresAt = !stored || changed ? checkExpiry(asked, maximumLifetimeDays, now) : asked;
    },
    async () => {
      if (input.subAccounts === undefined) return;
      const asked: SubAccountSelection =
        input.subAccounts === "all" ? ALL_SUB_ACCOUNTS : { all: false, locationIds: input.subAccountIds ?? [] };
      subAccounts = await resolveSubAccountSelection(tx, owner.companyId, owner.level, asked);
    },
    () => {
      if (input.allowedIpAddresses !== undefined)
        allowedIpAddresses = parseAllowedIpAddresses(input.allowedIpAddresses);
    },
  ]);
  return { expiresAt, subAccounts, allowedIpAddresses };
}

/** Guard rails for an audit entry's details: plain JSON, dates as the `Expires` field shows them. */
export function guardRailDetails(rails: GuardRails) {
  return {
    expires: rails.expiresAt ? expiresDateOf(rails.expiresAt) : null,
    subAccounts: rails.subAccounts.all ? "all" : rails.subAccounts.locationIds,
    allowedIpAddresses: rails.allowedIpAddresses,
  };
}

/** The guard rails that differ between two settings, by name, for Edit's audit entry. */
export function changedGuardRails(before: GuardRails, after: GuardRails): string[] {
  const a = guardRailDetails(before);
  const b = guardRailDetails(after);
  return (Object.keys(a) as (keyof typeof a)[]).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** The agency's `Maximum token lifetime` in days, or null (also for an unknown agency). */
export async function maximumTokenLifetimeOf(tx: Tx, companyId: string): Promise<number | null> {
  const company = await tx.company.findUnique({ where: { id: companyId }, select: { maximumTokenLifetimeDays: true } });
  return company?.maximumTokenLifetimeDays ?? null;
}

// ---------------------------------------------------------------------------------------------
// Refusals on a request (401 invalid_token for an expired integration, else 403 forbidden)

export function expiredIntegrationDescription(expiresAt: Date): string {
  return `This private integration expired: its Expires date was ${expiresDateOf(expiresAt)}, so its tokens stopped working at ${expiresAt.toISOString()}. Set a later Expires date with Edit under Settings > Private Integrations.`;
}

export function addressNotAllowedDescription(address: string): string {
  const from = address === "unknown" ? "an address the server could not determine" : address;
  return `This private integration accepts requests only from its Allowed IP addresses, and this request came from ${from}. Call from an allowed address, or add this one with Edit under Settings > Private Integrations.`;
}

export const subAccountNotChosenDescription =
  "This agency private integration may act only on its chosen Sub-accounts, and this sub-account is not one of them. Choose it (or All sub-accounts) with Edit under Settings > Private Integrations.";
