"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { clientSecretOverlapLabels, clientSecretOverlaps } from "@/lib/apps/client-secret-overlap";
import { addPublicKey, generateKeyPair, removeAppKey, setJwksUrl } from "@/lib/apps/keys";
import { createApp, updateApp } from "@/lib/apps/registry";
import { revokePreviousClientSecret, rotateClientSecret } from "@/lib/apps/secrets";
import { rotateWebhookSecret } from "@/lib/apps/webhook-secret-rotation";
import { actorAction, echoValues } from "@/lib/auth/actions";
import { parseIdempotencyKey } from "@/lib/idempotency/keys";

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
/**
 * One per press of the dialog's button, kept while it is open: sent again after a lost answer, the
 * same secret or key pair comes back and nothing is made twice (lib/idempotency/keys.ts).
 */
const idempotencyField = { idempotencyKey: z.string().max(1000).optional() };

// Every field is typed or ticked, so a refusal keeps them all: a mistake costs nothing to fix.
const appForm = {
  unreadable: "The form could not be read. Reload the page and try again.",
  keep: (input: { scopes: string[] }) => ({ data: { scopes: input.scopes } }),
};
const appIdForm = { unreadable: "The form could not be read. Reload the page." };
/**
 * A new client or webhook secret (shown once), or revoking the previous client secret, needs a
 * recent authentication (`Confirm it's you`).
 */
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

/** `Generate new client secret`: the previous secret keeps working for the overlap chosen (24 hours unless). */
export const rotateClientSecretAction = actorAction(
  appId.extend({ overlap: z.enum(clientSecretOverlaps).default("24h"), ...idempotencyField }),
  async (input, actor) => {
    const { clientSecret, previousWorksUntil } = await rotateClientSecret(
      input.appId,
      { overlap: input.overlap, idempotencyKey: parseIdempotencyKey(input.idempotencyKey) },
      actor,
    );
    revalidatePath(`/developer/apps/${input.appId}`);
    return {
      ok: true,
      message: `A new client secret is in use. The previous one keeps working for ${clientSecretOverlapLabels[input.overlap]}; revoke it sooner once every server has the new one.`,
      data: { clientSecret, previousWorksUntil: previousWorksUntil.toISOString() },
    };
  },
  secretForm,
);

/** `Revoke previous secret`: it stops working at once. */
export const revokePreviousClientSecretAction = actorAction(
  appId,
  async (input, actor) => {
    const { revoked } = await revokePreviousClientSecret(input.appId, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return {
      ok: true,
      message: revoked
        ? "The previous client secret no longer works."
        : "There was no previous client secret left to revoke: only the current one works.",
    };
  },
  secretForm,
);

export const rotateWebhookSecretAction = actorAction(
  appId.extend(idempotencyField),
  async (input, actor) => {
    const { webhookSecret, previousSignsUntil } = await rotateWebhookSecret(input.appId, actor, new Date(), {
      idempotencyKey: parseIdempotencyKey(input.idempotencyKey),
    });
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

// App keys (SPEC.md › App keys): each change of a credential, so each needs `Confirm it's you`.
// The typed fields come back after a refusal (a public key and a URL are no secrets).
const keyForm = { unreadable: "The form could not be read. Reload the page.", confirmIdentity: true };

/** `Add public key`: a pasted public JWK. */
export const addAppKeyAction = actorAction(
  appId.extend({ jwk: z.string().default("") }),
  async (input, actor) => {
    const key = await addPublicKey(input.appId, input.jwk, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return { ok: true, message: `The key ${key.kid} is added.`, data: { keyId: key.id, kid: key.kid } };
  },
  keyForm,
);

/** `Generate key pair`: only the public half is kept; the private key goes back this once. */
export const generateAppKeyPairAction = actorAction(
  appId.extend({ alg: z.string().max(20).default("ES256"), ...idempotencyField }),
  async (input, actor) => {
    const { key, privateKeyPem } = await generateKeyPair(input.appId, input.alg as "ES256", actor, {
      idempotencyKey: parseIdempotencyKey(input.idempotencyKey),
    });
    revalidatePath(`/developer/apps/${input.appId}`);
    return {
      ok: true,
      message: `A new ${key.alg} key pair is made; its public key ${key.kid} is added.`,
      data: { keyId: key.id, kid: key.kid, alg: key.alg, privateKeyPem },
    };
  },
  keyForm,
);

/** `Use this JWKS URL`: one per app, replacing the one before. */
export const setJwksUrlAction = actorAction(
  appId.extend({ jwksUrl: z.string().default("") }),
  async (input, actor) => {
    const key = await setJwksUrl(input.appId, input.jwksUrl, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return { ok: true, message: "The JWKS URL is saved.", data: { keyId: key.id, jwksUrl: key.jwksUrl } };
  },
  keyForm,
);

/** `Remove`: the key (or the JWKS URL) stops at once. */
export const removeAppKeyAction = actorAction(
  appId.extend({ keyId: z.string().min(1) }),
  async (input, actor) => {
    const key = await removeAppKey(input.appId, input.keyId, actor);
    revalidatePath(`/developer/apps/${input.appId}`);
    return {
      ok: true,
      message: key.jwksUrl ? "The JWKS URL is removed." : `The key ${key.kid} is removed.`,
    };
  },
  keyForm,
);
