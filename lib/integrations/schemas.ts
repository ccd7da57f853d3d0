import { z } from "zod";
import { invalid, invalidFields } from "@/lib/refusal";
import { isScope, type Scope, type ScopeLevel, scopeLevels, scopesAtLevel } from "@/lib/scopes";

export const integrationNameSchema = z
  .string({ error: "Enter a name." })
  .trim()
  .min(1, { error: "Enter a name." })
  .max(80, { error: "Use a name of at most 80 characters." });

export const integrationDescriptionSchema = z
  .string()
  .trim()
  .max(500, { error: "Use a description of at most 500 characters." })
  .default("");

/** Scope names as sent by a form; checked against the level by `checkScopes`. */
export const integrationScopesSchema = z
  .array(z.string().max(100), { error: "Choose at least one scope." })
  .max(200)
  .min(1, { error: "Choose at least one scope." });

/**
 * The optional guard rails as the forms send them (checked by `checkGuardRailsInput` in
 * guard-rails.ts): `Expires` as YYYY-MM-DD (empty: never), `Sub-accounts` all or chosen with the
 * chosen ids, `Allowed IP addresses` one per line. A field left out keeps what is stored (on Edit)
 * or the default (on Create).
 */
export const guardRailsInputSchema = z.object({
  expires: z.string().max(40).optional(),
  subAccounts: z.enum(["all", "chosen"], { error: "Choose All sub-accounts or the chosen ones." }).optional(),
  subAccountIds: z.array(z.string().min(1).max(100)).max(1000).optional(),
  allowedIpAddresses: z.string().max(20_000, { error: "Use at most 20,000 characters of addresses." }).optional(),
});
export type GuardRailsInput = z.input<typeof guardRailsInputSchema>;

/** What the create and edit forms send. */
export const privateIntegrationInputSchema = z.object({
  name: integrationNameSchema,
  description: integrationDescriptionSchema,
  scopes: integrationScopesSchema,
  ...guardRailsInputSchema.shape,
});
export type PrivateIntegrationInput = z.input<typeof privateIntegrationInputSchema>;

const levelWords: Record<ScopeLevel, string> = { agency: "an agency", location: "a sub-account" };

/** Known scopes valid at `level`, de-duplicated in catalog order, or a field error saying which one is not. */
export function checkScopes(names: readonly string[], level: ScopeLevel): Scope[] {
  if (names.length === 0) throw invalid("Choose at least one scope.", "scopes");
  for (const name of names) {
    if (!isScope(name)) throw invalid(`“${name.slice(0, 60)}” is not a known scope.`, "scopes");
    if (!scopeLevels(name).includes(level)) {
      throw invalid(
        `${name} cannot be given to ${levelWords[level]} integration; choose among the scopes listed here.`,
        "scopes",
      );
    }
  }
  return scopesAtLevel(names, level);
}

/**
 * Parses form input; refuses with every invalid field at once (a Refusal whose
 * `data.fieldErrors` names each), so a form shows each refusal beside its field in one go. The
 * guard rails are checked by guardRailsFromInput (they need the database and the clock);
 * lifecycle.ts merges both refusals.
 */
export function parseIntegrationInput(input: unknown, level: ScopeLevel) {
  const parsed = privateIntegrationInputSchema.safeParse(input);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of parsed.error.issues) fieldErrors[String(issue.path[0] ?? "name")] ??= issue.message;
    throw invalidFields(fieldErrors);
  }
  return { ...parsed.data, scopes: checkScopes(parsed.data.scopes, level) };
}
