import { z } from "zod";
import { invalid, invalidFields, Refusal } from "@/lib/refusal";
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

/** The rules of what the create and edit forms send, field by field (see parseIntegrationInput). */
export const privateIntegrationInputSchema = z.object({
  name: integrationNameSchema,
  description: integrationDescriptionSchema,
  scopes: integrationScopesSchema,
  ...guardRailsInputSchema.shape,
});

/**
 * What the create and edit forms may send: types and sizes only, for the server actions. The rules
 * are the lifecycle's (parseIntegrationInput, the guard rails), which name every invalid field at
 * once; a rule here would answer alone, before the others were checked.
 */
export const privateIntegrationFormSchema = z.object({
  name: z.string().max(1000).optional(),
  description: z.string().max(5000).optional(),
  scopes: z.array(z.string().max(200)).max(500).optional(),
  expires: z.string().max(1000).optional(),
  subAccounts: z.string().max(100).optional(),
  subAccountIds: z.array(z.string().max(200)).max(2000).optional(),
  allowedIpAddresses: z.string().max(100_000).optional(),
});
export type PrivateIntegrationInput = z.input<typeof privateIntegrationFormSchema>;

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

type FieldRule = z.ZodType<unknown, unknown>;

/** Each field of `input` checked by its own rule: what passed, and the first message of each that did not. */
function parseEachField(rules: Record<string, FieldRule>, input: unknown) {
  const fields = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const fieldErrors: Record<string, string> = {};
  for (const [field, rule] of Object.entries(rules)) {
    const parsed = rule.safeParse(fields[field]);
    if (parsed.success) {
      if (parsed.data !== undefined) values[field] = parsed.data;
    } else {
      fieldErrors[field] = parsed.error.issues[0]?.message ?? "Check this field.";
    }
  }
  return { values, fieldErrors };
}

/**
 * Parses form input; refuses with every invalid field at once (a Refusal whose
 * `data.fieldErrors` names each), so a form shows each refusal beside its field in one go. Each
 * field is checked on its own, so an empty name does not hide an unknown scope. The guard rails
 * are checked by guardRailsFromInput (they need the database and the clock); lifecycle.ts merges
 * both refusals, taking the guard-rail fields from `guardRailsInputOf` when this one refuses.
 */
export function parseIntegrationInput(input: unknown, level: ScopeLevel) {
  const { values, fieldErrors } = parseEachField(privateIntegrationInputSchema.shape, input);
  let scopes: Scope[] = [];
  if (values.scopes) {
    try {
      scopes = checkScopes(values.scopes as string[], level);
    } catch (error) {
      if (!(error instanceof Refusal) || !error.field) throw error;
      fieldErrors[error.field] = error.message;
    }
  }
  if (Object.keys(fieldErrors).length) throw invalidFields(fieldErrors);
  return { ...(values as z.output<typeof privateIntegrationInputSchema>), scopes };
}

/** The guard-rail fields of form input that are well formed, each on its own; a malformed one is left out. */
export function guardRailsInputOf(input: unknown): GuardRailsInput {
  return parseEachField(guardRailsInputSchema.shape, input).values as GuardRailsInput;
}
