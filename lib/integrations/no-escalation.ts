import { forbidden } from "@/lib/refusal";
import { heldScopes, type Scope } from "@/lib/scopes";
import { changedGuardRails, expiresDateOf, type GuardRails } from "./guard-rails";
import { isEntryWithin } from "./ip-allowlist";

/**
 * The management API's rules against escalation (SPEC.md › Private integrations under automation):
 * an integration acting on others needs `private-integrations.write` (`.readonly` for reads;
 * `.write` includes `.readonly`), and can give another integration only scopes it holds itself,
 * never `private-integrations.write`, and no wider guard rails than its own, so no token can mint
 * or obtain a stronger one.
 */

export const MANAGE_SCOPE = "private-integrations.write" satisfies Scope;
export const READ_SCOPE = "private-integrations.readonly" satisfies Scope;

export { heldScopes };

/** Whether an integration with `scopes` may read (`read`) or change (`write`) private integrations. */
export function mayManageIntegrations(scopes: readonly string[], access: "read" | "write"): boolean {
  return heldScopes(scopes).has(access === "write" ? MANAGE_SCOPE : READ_SCOPE);
}

/**
 * Refuses (403 forbidden, naming the scopes) a create or edit by an integration holding
 * `callerScopes` that would give `requested` scopes beyond its own, or `private-integrations.write`.
 */
export function requireNoEscalation(callerScopes: readonly string[], requested: readonly string[]): void {
  if (requested.includes(MANAGE_SCOPE)) {
    throw forbidden(
      `An integration cannot give ${MANAGE_SCOPE} to another; only a person can, on the Private Integrations screen.`,
    );
  }
  const held = heldScopes(callerScopes);
  const beyond = requested.filter((scope) => !held.has(scope));
  if (beyond.length) {
    throw forbidden(
      `An integration can only give scopes it holds itself; this one does not hold ${beyond.join(", ")}.`,
    );
  }
}

/**
 * Refuses (403 forbidden) a rotation by an integration of one whose scopes it does not all hold:
 * the new token would be stronger than the caller's own. Rotating itself is always allowed.
 */
export function requireNoStrongerToken(callerScopes: readonly string[], targetScopes: readonly string[]): void {
  const held = heldScopes(callerScopes);
  const beyond = targetScopes.filter((scope) => !held.has(scope));
  if (beyond.length) {
    throw forbidden(
      `An integration can only rotate integrations whose scopes it holds itself; this one does not hold ${beyond.join(", ")}.`,
    );
  }
}

/**
 * What an integration reaches besides its scopes: its guard rails (guard-rails.ts) and, for a
 * sub-account integration, its one sub-account.
 */
export interface Reach extends GuardRails {
  /** Set for a sub-account integration: the only sub-account it reaches. Null: an agency integration. */
  locationId: string | null;
}

/** A change by an integration acting through the management API, as `requireNoWiderReach` checks it. */
export type ReachChange =
  | { action: "create"; result: Reach }
  | { action: "edit"; before: Reach; result: Reach; self: boolean }
  /** The integration rotated: its token is what the caller obtains. */
  | { action: "rotate"; result: Reach };

const obtains: Record<ReachChange["action"], string> = {
  create: "create",
  edit: "edit",
  rotate: "rotate (and so take the token of)",
};

const whatToDo: Record<ReachChange["action"], string> = {
  create: "Ask for no more in the request, or ask a person to create it on the Private Integrations screen.",
  edit: "Ask for no more in the request (a field left out keeps the integration's value), or ask a person to edit it on the Private Integrations screen.",
  rotate:
    "Narrow that integration's guard rails first (PATCH /private-integrations/{id}), or ask a person to rotate it on the Private Integrations screen.",
};

const guardRailNames: Record<string, string> = {
  subAccounts: "Sub-accounts",
  allowedIpAddresses: "Allowed IP addresses",
  expires: "Expires",
};

/**
 * The guard-rail half of "no escalation" (SPEC.md › Private integrations under automation; the
 * scope half is above): an integration acting through the management API never gives, keeps or
 * obtains more reach than it has. The integration that a create or edit leaves behind, or whose
 * new token a rotation hands over, must reach no sub-account the caller cannot, accept no address
 * the caller's Allowed IP addresses refuse, and expire no later than the caller. An integration
 * may not change its own guard rails at all (a person can); it may rotate itself. Refuses with 403
 * forbidden naming the guard rail and what to do. People are never checked by it.
 */
export function requireNoWiderReach(caller: Reach, change: ReachChange): void {
  if (change.action === "edit" && change.self) {
    const changed = changedGuardRails(change.before, change.result);
    if (changed.length) {
      throw forbidden(
        `An integration cannot change its own guard rails (Sub-accounts, Allowed IP addresses, Expires) through the API; this request changes ${changed.map((k) => guardRailNames[k] ?? k).join(", ")}. Leave them out, or ask a person to change them with Edit on the Private Integrations screen.`,
      );
    }
  }
  const beyond = reachBeyond(caller, change.result);
  if (beyond) {
    throw forbidden(
      `This integration ${beyond.rule}, so it can only ${obtains[change.action]} integrations ${beyond.need}. ${whatToDo[change.action]}`,
    );
  }
}

/** The first guard rail by which `target` reaches beyond `caller`, in words, or undefined. */
export function reachBeyond(caller: Reach, target: Reach): { rule: string; need: string } | undefined {
  if (!subAccountsWithin(caller, target)) {
    return caller.locationId
      ? { rule: "belongs to one sub-account", need: "of that sub-account" }
      : {
          rule: "is limited to chosen Sub-accounts",
          need: `that reach no other: a sub-account integration of one of them, or an agency integration whose Sub-accounts (subAccounts) are some of them, never "all" (its Sub-accounts: ${listed(caller.subAccounts.all ? [] : caller.subAccounts.locationIds)})`,
        };
  }
  if (caller.allowedIpAddresses.length) {
    const outside = target.allowedIpAddresses.filter((entry) => !isEntryWithin(entry, caller.allowedIpAddresses));
    if (target.allowedIpAddresses.length === 0 || outside.length) {
      const which = outside.length
        ? `${listed(outside)} ${outside.length === 1 ? "is" : "are"} not`
        : "none are set, which allows every address";
      return {
        rule: `has Allowed IP addresses (${listed(caller.allowedIpAddresses)})`,
        need: `whose Allowed IP addresses (allowedIps) are set and each one of these or an address or range contained in one of these ranges (${which})`,
      };
    }
  }
  if (caller.expiresAt && (!target.expiresAt || target.expiresAt.getTime() > caller.expiresAt.getTime())) {
    const last = expiresDateOf(caller.expiresAt);
    const which = target.expiresAt ? `, not ${expiresDateOf(target.expiresAt)}` : ", not never";
    return {
      rule: `expires on ${last}`,
      need: `that expire no later: an Expires (expiresAt) of ${last} or earlier${which}`,
    };
  }
  return undefined;
}

/** Every sub-account `target` reaches (all of them, later ones included, or some) the caller reaches too. */
function subAccountsWithin(caller: Reach, target: Reach): boolean {
  if (caller.locationId) return target.locationId === caller.locationId;
  if (caller.subAccounts.all) return true;
  const mine = new Set(caller.subAccounts.locationIds);
  if (target.locationId) return mine.has(target.locationId);
  return !target.subAccounts.all && target.subAccounts.locationIds.every((id) => mine.has(id));
}

/** Ids or entries for a message: the first few, and how many more (a list may hold a thousand). */
function listed(items: readonly string[], shown = 5): string {
  const more = items.length - shown;
  return more > 0 ? `${items.slice(0, shown).join(", ")} and ${more} more` : items.join(", ");
}
