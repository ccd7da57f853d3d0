import type { Tx } from "@/lib/db/client";
import { invalid } from "@/lib/errors";
import type { ScopeLevel } from "@/lib/scopes";
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

const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// Expires and Maximum token lifetime

/** The largest `Maximum token lifetime` an agency may set (a year, leap years included). */
export const MAX_TOKEN_LIFETIME_LIMIT_DAYS = 366;

/** `2026-12-31`, the date an instant falls on in UTC. */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The `Expires` field (YYYY-MM-DD, a UTC date; empty means never) as the moment the tokens stop
 * working: the end of that day, i.e. midnight UTC after it ("a date after which the tokens stop").
 */
export function parseExpiresDate(input: string | null | undefined, field = "expires"): Date | null {
  const text = (input ?? "").trim();
  if (text === "") return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const start = match ? new Date(`${text}T00:00:00.000Z`) : undefined;
  if (!start || Number.isNaN(start.getTime()) || utcDate(start) !== text) {
    throw invalid("Enter the Expires date as YYYY-MM-DD, e.g. 2026-12-31, or leave it empty for never.", field);
  }
  return new Date(start.getTime() + DAY_MS);
}

/** The date to show in the `Expires` field for a stored expiry: the last day the tokens work. */
export function expiresDateOf(expiresAt: Date): string {
  return utcDate(new Date(expiresAt.getTime() - 1));
}

/** The latest expiry a maximum allows from `now`: the end of the day `maximumDays` days from today (UTC). */
export function latestAllowedExpiry(maximumDays: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today + (maximumDays + 1) * DAY_MS);
}

/**
 * Checks an integration's expiry (as `parseExpiresDate` gives it) against the clock and the
 * agency's `Maximum token lifetime` (null: none). A moment that has passed is refused; with a
 * maximum, no expiry and a later one are refused. Returns the expiry, or throws a field error.
 */
export function checkExpiry(
  expiresAt: Date | null,
  maximumLifetimeDays: number | null,
  now: Date,
  field = "expires",
): Date | null {
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalid(`This Expires date has passed: choose ${utcDate(now)} or later, or leave it empty for never.`, field);
  }
  if (maximumLifetimeDays === null) return expiresAt;
  const latest = latestAllowedExpiry(maximumLifetimeDays, now);
  const rule = `Your agency's Maximum token lifetime is ${maximumLifetimeDays} day${maximumLifetimeDays === 1 ? "" : "s"}`;
  if (!expiresAt) {
    throw invalid(`${rule}: choose an Expires date on or before ${expiresDateOf(latest)}.`, field);
  }
  if (expiresAt.getTime() > latest.getTime()) {
    throw invalid(
      `${rule}: choose an Expires date on or before ${expiresDateOf(latest)}, or ask an agency admin to raise the maximum.`,
      field,
    );
  }
  return expiresAt;
}

/**
 * The agency's `Maximum token lifetime` field: whole days from 1 to 366, or empty for no maximum.
 */
export function parseMaximumTokenLifetime(
  input: string | number | null | undefined,
  field = "maximumTokenLifetimeDays",
): number | null {
  const text = typeof input === "number" ? String(input) : (input ?? "").trim();
  if (text === "") return null;
  const days = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_LIFETIME_LIMIT_DAYS) {
    throw invalid(
      `Enter the Maximum token lifetime as whole days from 1 to ${MAX_TOKEN_LIFETIME_LIMIT_DAYS}, or leave it empty for no maximum.`,
      field,
    );
  }
  return days;
}

/** What the list shows for an integration's expiry. */
export type ExpiryStatus = { kind: "never" } | { kind: "expires"; days: number } | { kind: "expired" };

/**
 * `Expires in N days` (N rounded up, so the last day is "in 1 day") or `Expired` at `now`.
 */
export function expiryStatus(expiresAt: Date | null, now: Date): ExpiryStatus {
  if (!expiresAt) return { kind: "never" };
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return { kind: "expired" };
  return { kind: "expires", days: Math.ceil(left / DAY_MS) };
}

// ---------------------------------------------------------------------------------------------
// Rotate and expire this token later: the overlap

export const ROTATION_OVERLAP_CHOICES = [1, 3, 7, 14, 30] as const;
export type RotationOverlapDays = (typeof ROTATION_OVERLAP_CHOICES)[number];
export const DEFAULT_ROTATION_OVERLAP_DAYS: RotationOverlapDays = 7;

export function isRotationOverlap(value: unknown): value is RotationOverlapDays {
  return ROTATION_OVERLAP_CHOICES.includes(value as RotationOverlapDays);
}

/**
 * The dialog's choice ("1", "3", "7", "14" or "30" days; missing means 7) as a checked value.
 */
export function parseRotationOverlap(
  input: string | number | null | undefined,
  field = "overlapDays",
): RotationOverlapDays {
  if (input === undefined || input === null || input === "") return DEFAULT_ROTATION_OVERLAP_DAYS;
  const days = typeof input === "number" ? input : /^\d{1,2}$/.test(input.trim()) ? Number(input.trim()) : Number.NaN;
  if (!isRotationOverlap(days)) {
    throw invalid(`Choose how long the old token keeps working: ${ROTATION_OVERLAP_CHOICES.join(", ")} days.`, field);
  }
  return days;
}

/** The moment the old token stops working: the only thing stored (its row's expiresAt). */
export function oldTokenExpiresAt(overlapDays: RotationOverlapDays, now: Date): Date {
  return new Date(now.getTime() + overlapDays * DAY_MS);
}

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
  if (expiresText !== undefined) {
    const asked = parseExpiresDate(expiresText);
    const changed = (asked?.getTime() ?? null) !== (base.expiresAt?.getTime() ?? null);
    expiresAt = !stored || changed ? checkExpiry(asked, maximumLifetimeDays, now) : asked;
  }
  const subAccounts =
    input.subAccounts === undefined
      ? base.subAccounts
      : await resolveSubAccountSelection(
          tx,
          owner.companyId,
          owner.level,
          input.subAccounts === "all" ? ALL_SUB_ACCOUNTS : { all: false, locationIds: input.subAccountIds ?? [] },
        );
  const allowedIpAddresses =
    input.allowedIpAddresses === undefined
      ? base.allowedIpAddresses
      : parseAllowedIpAddresses(input.allowedIpAddresses);
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
