"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, actionError, echoValues, formDataToObject } from "@/lib/actions";
import { createApp, updateApp } from "@/lib/apps/registry";
import { regenerateClientSecret, rotateWebhookSecret } from "@/lib/apps/secrets";
import { getActor } from "@/lib/auth/session";

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

async function formAction(
  formData: FormData,
  run: (input: z.infer<typeof appFormSchema>, raw: Record<string, unknown>) => Promise<ActionState>,
): Promise<ActionState> {
  const raw = formDataToObject(formData);
  const parsed = appFormSchema.safeParse(raw);
  if (!parsed.success) return { error: "The form could not be read. Reload the page and try again." };
  try {
    return await run(parsed.data, raw);
  } catch (error) {
    // Keep what was typed and ticked, so a refusal costs nothing to fix.
    return { ...actionError(error), values: echoValues(raw), data: { scopes: parsed.data.scopes } };
  }
}

export async function createAppAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const actor = await getActor();
  if (!actor) return { error: "Your session has ended. Sign in again." };
  return formAction(formData, async (input) => {
    const { app, clientSecret, webhookSecret } = await createApp(
      {
        companyId: actor.companyId,
        name: input.name,
        description: input.description,
        redirectUris: input.redirectUris,
        scopes: input.scopes,
        installSetting: input.installSetting as "everyone",
        webhookUrl: input.webhookUrl || null,
      },
      actor,
    );
    revalidatePath("/developer/apps");
    return {
      ok: true,
      message: `${app.name} is created.`,
      data: { appId: app.id, clientId: app.clientId, clientSecret, webhookSecret },
    };
  });
}

export async function updateAppAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const actor = await getActor();
  if (!actor) return { error: "Your session has ended. Sign in again." };
  const appId = formData.get("appId");
  if (typeof appId !== "string" || !appId) return { error: "The form could not be read. Reload the page." };
  return formAction(formData, async (input, raw) => {
    const app = await updateApp(
      appId,
      {
        name: input.name,
        description: input.description,
        redirectUris: input.redirectUris,
        scopes: input.scopes,
        installSetting: input.installSetting as "everyone",
        webhookUrl: input.webhookUrl || null,
      },
      actor,
    );
    revalidatePath(`/developer/apps/${appId}`);
    return { ok: true, message: "Saved.", values: echoValues(raw), data: { scopes: app.scopes } };
  });
}

export async function regenerateSecretAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const actor = await getActor();
  if (!actor) return { error: "Your session has ended. Sign in again." };
  const appId = formData.get("appId");
  if (typeof appId !== "string" || !appId) return { error: "The form could not be read. Reload the page." };
  try {
    const { clientSecret } = await regenerateClientSecret(appId, actor);
    revalidatePath(`/developer/apps/${appId}`);
    return { ok: true, message: "A new client secret is in use; the old one no longer works.", data: { clientSecret } };
  } catch (error) {
    return actionError(error);
  }
}

export async function rotateWebhookSecretAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const actor = await getActor();
  if (!actor) return { error: "Your session has ended. Sign in again." };
  const appId = formData.get("appId");
  if (typeof appId !== "string" || !appId) return { error: "The form could not be read. Reload the page." };
  try {
    const { webhookSecret, previousSignsUntil } = await rotateWebhookSecret(appId, actor);
    revalidatePath(`/developer/apps/${appId}`);
    return {
      ok: true,
      message: previousSignsUntil
        ? "A new webhook secret signs every delivery from now on. The previous one keeps signing too for 24 hours."
        : "A webhook secret signs every delivery from now on.",
      data: { webhookSecret, previousSignsUntil: previousSignsUntil?.toISOString() ?? null },
    };
  } catch (error) {
    return actionError(error);
  }
}
