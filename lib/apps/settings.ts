import { z } from "zod";
import type { InstallSetting } from "@/lib/generated/prisma/client";
import { invalid } from "@/lib/refusal";
import { isScope, type Scope, scopesForLevel } from "@/lib/scopes";
import { webhookUrlSaveProblem } from "@/lib/webhooks/ssrf";
import { redirectUriProblem, webhookUrlProblem } from "./redirect-uris";

/** What a developer registers for an app (name, redirect URIs, scopes, who can install, webhook URL), checked. */

export const installSettings = ["agency_only", "everyone"] as const satisfies readonly InstallSetting[];
export const installSettingLabels: Record<InstallSetting, string> = {
  agency_only: "Agency only",
  everyone: "Everyone",
};

const nameSchema = z
  .string()
  .trim()
  .min(1, { error: "Enter the app's name." })
  .max(100, { error: "Use a name of at most 100 characters." });
const descriptionSchema = z.string().trim().max(1000, { error: "Use a description of at most 1000 characters." });
/** A list typed line by line or ticked: trimmed, empty entries dropped, each once, in order. */
const distinctEntries = () => z.array(z.string().trim()).transform((entries) => [...new Set(entries.filter(Boolean))]);
const redirectUrisSchema = distinctEntries().check((ctx) => {
  if (ctx.value.length === 0) {
    ctx.issues.push({ code: "custom", input: ctx.value, message: "Add at least one redirect URI." });
  }
  if (ctx.value.length > 10) {
    ctx.issues.push({ code: "custom", input: ctx.value, message: "Register at most 10 redirect URIs." });
  }
  for (const uri of ctx.value) {
    const problem = redirectUriProblem(uri);
    if (problem) ctx.issues.push({ code: "custom", input: uri, message: problem });
  }
});
const scopesSchema = distinctEntries()
  .check((ctx) => {
    if (ctx.value.length === 0) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: "Choose at least one scope." });
    }
    for (const name of ctx.value) {
      if (!isScope(name)) {
        ctx.issues.push({ code: "custom", input: name, message: `"${name.slice(0, 60)}" is not a known scope.` });
      }
    }
  })
  .transform((names) => sortScopes(names as Scope[]));
const installSettingSchema = z.enum(installSettings, {
  error: () => "Choose who can install: agency_only (Agency only) or everyone (Everyone).",
});
const webhookUrlSchema = z
  .string()
  .trim()
  .nullish()
  .transform((v) => v || null)
  .check((ctx) => {
    const problem = ctx.value ? webhookUrlProblem(ctx.value) : undefined;
    if (problem) ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
  });

export const newAppSchema = z.object({
  companyId: z.string().min(1, { error: "Choose the developer agency." }),
  name: nameSchema,
  description: descriptionSchema.default(""),
  redirectUris: redirectUrisSchema,
  scopes: scopesSchema,
  installSetting: installSettingSchema,
  webhookUrl: webhookUrlSchema,
});
export type NewApp = z.input<typeof newAppSchema>;

export const appUpdateSchema = z.object({
  name: nameSchema.optional(),
  description: descriptionSchema.optional(),
  redirectUris: redirectUrisSchema.optional(),
  scopes: scopesSchema.optional(),
  installSetting: installSettingSchema.optional(),
  webhookUrl: webhookUrlSchema.optional(),
});
export type AppUpdate = z.input<typeof appUpdateSchema>;

/** Catalog order: agency scopes first, as the catalog lists them. */
function sortScopes(scopes: Scope[]): Scope[] {
  const order = new Map<string, number>();
  [...scopesForLevel("agency"), ...scopesForLevel("location")].forEach((s, i) => {
    if (!order.has(s)) order.set(s, i);
  });
  return [...scopes].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/** The first zod issue as a Refusal naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path[0] === undefined ? undefined : String(issue.path[0]);
  throw invalid(issue?.message ?? "The app's settings are invalid.", field);
}

/**
 * SPEC.md: a webhook URL on a loopback or private network is refused when it is saved, beside its
 * field, not only at delivery (unless WEBHOOK_ALLOW_PRIVATE=1). Apart from the zod schemas because
 * it waits: a host name is resolved. Call it on a URL those schemas accepted.
 */
export async function checkWebhookTarget(webhookUrl: string | null | undefined): Promise<void> {
  if (!webhookUrl) return;
  const problem = await webhookUrlSaveProblem(webhookUrl);
  if (problem) throw invalid(problem, "webhookUrl");
}
