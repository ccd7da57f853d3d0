import { forbidden } from "@/lib/refusal";
import { heldScopes, type Scope } from "@/lib/scopes";

/**
 * The management API's rules about scopes (SPEC.md › Private integrations under automation): an
 * integration acting on others needs `private-integrations.write` (`.readonly` for reads; `.write`
 * includes `.readonly`), and can give another integration only scopes it holds itself, never
 * `private-integrations.write`, so no token can mint a stronger one.
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
