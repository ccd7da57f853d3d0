import { forbidden } from "@/lib/refusal";
import { heldScopes, type Scope } from "@/lib/scopes";
import { type LifecycleKind, lifecycleActions, lifecycleKinds } from "./catalog";
import { changedGuardRails, expiresDateOf, type GuardRails } from "./guard-rails";
import { isEntryWithin } from "./ip-allowlist";

/**
 * The management API's rules against escalation (SPEC.md › Private integrations under automation):
 * an integration acting on others needs `private-integrations.write` (`.readonly` for reads;
 * `.write` includes `.readonly`), acts only on integrations it covers, and can give another
 * integration only scopes it holds itself, never `private-integrations.write`, and no wider guard
 * rails than its own, so no token can mint, widen or obtain a stronger one.
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
  | { action: "edit"; before: Reach; result: Reach; self: boolean };

const whatToDo: Record<ReachChange["action"], string> = {
  create: "Ask for no more in the request, or ask a person to create it on the Private Integrations screen.",
  edit: "Ask for no more in the request (a field left out keeps the integration's value), or ask a person to edit it on the Private Integrations screen.",
};

const guardRailNames: Record<string, string> = {
  subAccounts: "Sub-accounts",
  allowedIpAddresses: "Allowed IP addresses",
  expires: "Expires",
};

/**
 * The guard-rail half of "no escalation" (SPEC.md › Private integrations under automation; the
 * scope half is above): an integration acting through the management API never gives or keeps
 * more reach than it has. The integration that a create or edit leaves behind must reach no
 * sub-account the caller cannot, accept no address the caller's Allowed IP addresses refuse, and
 * expire no later than the caller (what it may act on at all is `requireCovers`). An integration
 * may not change its own guard rails at all (a person can). Refuses with 403 forbidden naming the
 * guard rail and what to do. People are never checked by it.
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
      `This integration ${beyond.rule}, so it can only ${change.action} integrations ${beyond.need}. ${whatToDo[change.action]}`,
    );
  }
}

/** An integration as `requireCovers` weighs it: its scopes and its reach. */
export interface Holding extends Reach {
  scopes: readonly string[];
}

/** What an integration does to another through the management API once the other exists: edit it, or a lifecycle action. */
export type CoveredAction = "edit" | LifecycleKind;

const coveredWords: Record<CoveredAction, { acts: string; person: string }> = {
  edit: { acts: "edit", person: "edit it" },
  ...(Object.fromEntries(lifecycleKinds.map((kind) => [kind, lifecycleActions[kind].cover])) as Record<
    LifecycleKind,
    { acts: string; person: string }
  >),
};

/**
 * SPEC.md: an integration acts only on integrations it covers. Every scope of `target` must be one
 * the caller holds and its sub-accounts, allowed addresses and expiry each within the caller's, as
 * they are before the action: else a narrower token could loosen, delete or take the token of a
 * wider one. An integration covers itself (same scopes and reach). Refuses with 403 forbidden
 * naming the rule; the way out is a person, since the API cannot first narrow what it does not
 * cover. People are never checked by it.
 */
export function requireCovers(caller: Holding, target: Holding, action: CoveredAction): void {
  const { acts, person } = coveredWords[action];
  const ask = `Ask a person to ${person} on the Private Integrations screen.`;
  const held = heldScopes(caller.scopes);
  const missing = target.scopes.filter((scope) => !held.has(scope));
  if (missing.length) {
    throw forbidden(
      `An integration acts only on integrations it covers, so it can only ${acts} integrations whose every scope it holds itself; this one does not hold ${missing.join(", ")}. ${ask}`,
    );
  }
  const beyond = reachBeyond(caller, target);
  if (beyond) {
    throw forbidden(
      `An integration acts only on integrations it covers. This integration ${beyond.rule}, so it can only ${acts} integrations ${beyond.need}. ${ask}`,
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
export function subAccountsWithin(
  caller: Pick<Reach, "locationId" | "subAccounts">,
  target: Pick<Reach, "locationId" | "subAccounts">,
): boolean {
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
