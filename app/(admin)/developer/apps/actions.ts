"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createApp, updateApp } from "@/lib/apps/registry";
import { regenerateClientSecret, rotateWebhookSecret } from "@/lib/apps/secrets";
import { actorAction, echoValues } from "@/lib/auth/actions";

// Shapes only; the rules (URI schemes, scope names, lengths) are createApp's and updateApp's.
const appFormSchema = z.object({
  name: z.string().max(1000).default(""),
  description: z.string().max(5000).default(""),
  redirectUris: z
    .string()
    .max(30_000)
    .default("")
    .transform((v) => v.split(/\r?\n/).map((l) => l.trim())),
  scopes: z.array(z.string().max(200)).max(500).default([]),
  installSetting: z.string().max(40).default(""),
  webhookUrl: z.string().max(5000).default(""),
});
const appId = z.object({ appId: z.string().min(1) });

// Every field is typed or ticked, so a refusal keeps them all: a mistake costs nothing to fix.
const appForm = {
  unreadable: "The form could not be read. Reload the page and try again.",
  keep: (input: { scopes: string[] }) => ({ data: { scopes: input.scopes } }),
};
const appIdForm = { unreadable: "The form could not be read. Reload the page." };
/** A new client or webhook secret is shown once: it needs a recent authentication (`Confirm it's you`). */
const secretForm = { ...appIdForm, confirmIdentity: true };

function appFields(input: z.infer<typeof appFormSchema>) {
  return {
    name: input.name,
    description: input.description,
    redirectUris: input.redirectUris,
    scopes: input.scopes,
    installSetting: input.installSetting as "everyone",
    webhookUrl: input.webhookUrl || null,
  };
}

export const createAppAction = actorAction(
  appFormSchema,
  async (input, actor) => {
    const { app, clientSecret, webhookSecret } = await createApp(
      { companyId: actor.companyId, ...appFields(input) },
      actor,
    );
    revalidatePath("/developer/apps");
    return {
      ok: true,
      message: `${app.name} is created.`,
      data: { appId: app.id, clientId: app.clientId, clientSecret, webhookSecret },
    };
  },
  appForm,
);

export const updateAppAction = actorAction(
  appFormSchema.extend(appId.shape),
  async (input, actor, raw) => {
    const app = await updateApp(input.appId, appFields(input), actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return { ok: true, message: "Saved.", values: echoValues(raw), data: { scopes: app.scopes } };
  },
  appForm,
);

export const regenerateSecretAction = actorAction(
  appId,
  async (input, actor) => {
    const { clientSecret } = await regenerateClientSecret(input.appId, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return { ok: true, message: "A new client secret is in use; the old one no longer works.", data: { clientSecret } };
  },
  secretForm,
);

export const rotateWebhookSecretAction = actorAction(
  appId,
  async (input, actor) => {
    const { webhookSecret, previousSignsUntil } = await rotateWebhookSecret(input.appId, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return {
      ok: true,
      message: previousSignsUntil
        ? "A new webhook secret signs every delivery from now on. The previous one keeps signing too for 24 hours."
        : "A webhook secret signs every delivery from now on.",
      data: { webhookSecret, previousSignsUntil: previousSignsUntil?.toISOString() ?? null },
    };
  },
  secretForm,
);
