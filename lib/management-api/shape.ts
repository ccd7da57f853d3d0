// Over 250 lines on purpose: every shape of the management API with its OpenAPI examples, read
// together as the contract of SPEC.md › Private integrations under automation.
import { z } from "zod";
import { integrationStatuses, shownStatus } from "@/lib/integrations/catalog";
import { ROTATION_OVERLAP_CHOICES } from "@/lib/integrations/expiry";
import { expiresDateOf } from "@/lib/integrations/guard-rails";
import type { PrivateIntegrationInput } from "@/lib/integrations/schemas";
import type { PrivateIntegrationView } from "@/lib/integrations/views";

/**
 * The management API's shapes (SPEC.md › Private integrations under automation): what it answers
 * for an integration, and what it takes, mapped onto the screens' own input so the same lifecycle
 * functions check both. Every schema carries the examples the OpenAPI document shows.
 */

const exampleId = "cm3privint0000agency0001";
const exampleLocationId = "cm3location0000subacct01";

const ymd = /^\d{4}-\d{2}-\d{2}$/;

const integrationExample = {
  id: exampleId,
  name: "Nightly CRM sync",
  description: "Rotated by the secret manager",
  scopes: ["locations.readonly", "users.readonly"],
  locationId: null,
  status: "active" as const,
  tokenHint: "5b6c",
  createdAt: "2026-11-02T09:30:00.000Z",
  lastUsedAt: "2026-11-20T03:00:12.000Z",
  expiresAt: "2027-01-31",
  allowedIps: ["203.0.113.0/24"],
  subAccounts: "all" as const,
};

/** One integration as the API answers it: never a token, never a hash. */
export const apiPrivateIntegrationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    scopes: z.array(z.string()),
    locationId: z.string().nullable().meta({ description: "The sub-account's id; null for the agency's own." }),
    status: z.enum(integrationStatuses),
    tokenHint: z
      .string()
      .nullable()
      .meta({ description: "The last four characters of its current token; null while revoked (it has none)." }),
    createdAt: z.string().meta({ description: "ISO 8601." }),
    lastUsedAt: z.string().nullable().meta({ description: "ISO 8601; null if never used." }),
    expiresAt: z
      .string()
      .nullable()
      .meta({ description: "`Expires`: the last day (UTC) its tokens work, YYYY-MM-DD; null for never." }),
    allowedIps: z
      .array(z.string())
      .meta({ description: "`Allowed IP addresses`: addresses or CIDR ranges; empty: any." }),
    subAccounts: z
      .union([z.literal("all"), z.array(z.string())])
      .meta({ description: '`Sub-accounts`: "all", or the chosen sub-accounts\' ids (agency integrations).' }),
  })
  .meta({
    examples: [integrationExample],
  });
export type ApiPrivateIntegration = z.infer<typeof apiPrivateIntegrationSchema>;

const exampleToken = "pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c";

export const apiPrivateIntegrationListSchema = z
  .object({ privateIntegrations: z.array(apiPrivateIntegrationSchema) })
  .meta({ examples: [{ privateIntegrations: [integrationExample] }] });

/** Create and rotate: the integration and its new token, shown this once. */
export const apiIssuedTokenSchema = z
  .object({
    privateIntegration: apiPrivateIntegrationSchema,
    token: z.string().meta({ description: "The new token (pit-…), shown once: store it now." }),
  })
  .meta({ examples: [{ privateIntegration: integrationExample, token: exampleToken }] });

/** Edit, Expire now and Cancel rotation: the integration as it is now. */
export const apiPrivateIntegrationAnswerSchema = z
  .object({ privateIntegration: apiPrivateIntegrationSchema })
  .meta({ examples: [{ privateIntegration: integrationExample }] });

// The date's form is the lifecycle's to check (as `Expires`), so a 400 names it with every other
// invalid field at once; the pattern is for the document only.
const expiresAtInput = z.string().meta({ pattern: ymd.source }).nullable().meta({
  description: "The last day (UTC) its tokens work, YYYY-MM-DD; null for never (refused under an agency maximum).",
});
const subAccountsInput = z
  .union([z.literal("all"), z.array(z.string().min(1).max(100)).min(1).max(1000)], {
    error: 'Send "all" or an array of sub-account ids.',
  })
  .meta({ description: '"all" (the default) or the chosen sub-accounts\' ids; agency integrations only.' });
const allowedIpsInput = z
  .array(z.string().max(100))
  .max(1000)
  .meta({ description: "IPv4/IPv6 addresses or CIDR ranges; empty: any address." });

const fields = {
  name: z.string().max(200).meta({ description: "At most 80 characters." }),
  description: z.string().max(1000).meta({ description: "At most 500 characters." }),
  scopes: z
    .array(z.string().max(100))
    .max(200)
    .meta({ description: "Scopes valid at the integration's level, each held by the calling integration." }),
};

export const apiCreateSchema = z
  .strictObject({
    ...fields,
    description: fields.description.optional(),
    locationId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "A sub-account of the caller's agency; left out: an agency integration." }),
    expiresAt: expiresAtInput.optional(),
    subAccounts: subAccountsInput.optional(),
    allowedIps: allowedIpsInput.optional(),
  })
  .meta({
    examples: [
      {
        name: "Nightly CRM sync",
        description: "Rotated by the secret manager",
        scopes: ["locations.readonly", "users.readonly"],
        expiresAt: "2027-01-31",
        allowedIps: ["203.0.113.0/24"],
      },
    ],
  });
export type ApiCreateInput = z.infer<typeof apiCreateSchema>;

export const apiUpdateSchema = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    scopes: fields.scopes.optional(),
    expiresAt: expiresAtInput.optional(),
    subAccounts: subAccountsInput.optional(),
    allowedIps: allowedIpsInput.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { error: "Send at least one field to change." })
  .meta({ examples: [{ name: "Nightly CRM sync (v2)", expiresAt: "2027-03-31" }] });
export type ApiUpdateInput = z.infer<typeof apiUpdateSchema>;

export const apiRotateSchema = z
  .discriminatedUnion(
    "mode",
    [
      z.strictObject({
        mode: z.literal("later"),
        overlapDays: z
          .literal(ROTATION_OVERLAP_CHOICES, { error: "overlapDays is one of 1, 3, 7, 14 or 30." })
          .optional()
          .meta({ description: "How long the old token keeps working: 1, 3, 7 (default), 14 or 30 days." }),
      }),
      z.strictObject({ mode: z.literal("now") }),
    ],
    { error: 'Send {"mode":"later","overlapDays":1|3|7|14|30} or {"mode":"now"}.' },
  )
  .meta({ examples: [{ mode: "now" }, { mode: "later", overlapDays: 7 }] });
export type ApiRotateInput = z.infer<typeof apiRotateSchema>;

export const DEFAULT_USAGE_DAYS = 30;

export const apiUsageQuerySchema = z.strictObject({
  days: z
    .string()
    .regex(/^\d{1,2}$/, { error: "Use a whole number of days from 1 to 90." })
    .transform(Number)
    .refine((days) => days >= 1 && days <= 90, { error: "Use a whole number of days from 1 to 90." })
    .optional()
    .meta({ description: "1 to 90 (default 30): the last N UTC days, today last.", examples: ["7"] }),
});

export const apiUsageSchema = z
  .object({
    days: z.array(
      z.object({
        date: z.string().meta({ description: "YYYY-MM-DD (UTC)." }),
        ok: z.number().int(),
        refused: z.number().int(),
        limited: z.number().int(),
      }),
    ),
  })
  .meta({
    examples: [
      {
        days: [
          { date: "2026-11-23", ok: 1204, refused: 3, limited: 0 },
          { date: "2026-11-24", ok: 311, refused: 0, limited: 0 },
        ],
      },
    ],
  });

export const apiListQuerySchema = z.strictObject({
  locationId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({
      description: "A sub-account's id: its integrations; left out: the agency's own.",
      examples: [exampleLocationId],
    }),
});

export const apiIntegrationIdSchema = z.object({
  id: z.string().meta({ description: "The integration's id.", examples: [exampleId] }),
});

/** An integration's view as the API answers it. */
export function toApiIntegration(view: PrivateIntegrationView): ApiPrivateIntegration {
  const hasToken = view.token.id !== "";
  return {
    id: view.id,
    name: view.name,
    description: view.description,
    scopes: view.scopes,
    locationId: view.locationId,
    // SPEC.md's one status: a held one (Revoked), then Expired, then the rotation.
    status: shownStatus(view.status, view.expiry.kind === "expired"),
    tokenHint: hasToken ? view.token.hint.slice(-4) : null,
    createdAt: view.createdAt.toISOString(),
    lastUsedAt: view.lastUsedAt?.toISOString() ?? null,
    expiresAt: view.expiresAt ? expiresDateOf(view.expiresAt) : null,
    allowedIps: view.allowedIpAddresses,
    subAccounts: view.subAccounts.all ? "all" : view.subAccounts.chosen.map((c) => c.id),
  };
}

/** The API's names of the screens' form fields, for the field errors of a 400. */
const apiFieldNames: Record<string, string> = {
  expires: "expiresAt",
  allowedIpAddresses: "allowedIps",
  subAccountIds: "subAccounts",
};

export function apiFieldName(formField: string): string {
  return apiFieldNames[formField] ?? formField;
}

/**
 * API input as the screens' form input (lifecycle.ts checks both alike). A field left out stays
 * out, so Edit keeps what is stored; `expiresAt: null` is the empty `Expires` field (never).
 */
export function toFormInput(
  input: Omit<ApiUpdateInput, "name" | "scopes">,
  current: { name: string; description?: string; scopes: readonly string[] },
): PrivateIntegrationInput {
  return {
    name: current.name,
    description: input.description ?? current.description,
    scopes: [...current.scopes],
    ...(input.expiresAt !== undefined ? { expires: input.expiresAt ?? "" } : {}),
    ...(input.subAccounts === undefined
      ? {}
      : input.subAccounts === "all"
        ? { subAccounts: "all" as const }
        : { subAccounts: "chosen" as const, subAccountIds: input.subAccounts }),
    ...(input.allowedIps !== undefined ? { allowedIpAddresses: input.allowedIps.join("\n") } : {}),
  };
}

/** What the OpenAPI document says of the refusals every operation shares. */
export const callerRefusals =
  "An app's access token or a sub-account private integration (only agency private integrations use this API).";
export const labsRefusal = "Private Integrations is off in the agency's Labs (the description names Labs).";
export const unknownIdRefusal =
  "No integration with this id in the caller's agency: another agency's id answers the same as an unknown one.";
/** The guard-rail half of no escalation (lib/integrations/no-escalation.ts › requireNoWiderReach), as the errors list it. */
export const widerGuardRailsRefusal =
  "The result would reach beyond the caller's own guard rails: a sub-account outside its chosen Sub-accounts (or all of them), no Allowed IP addresses or one not inside its own, or no Expires or a later one than its own (the description names the guard rail and what to do).";
