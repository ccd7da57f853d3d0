"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import QRCode from "qrcode";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import {
  beginPasskeyConfirmation,
  confirmIdentity,
  confirmIdentityWithPasskey,
  confirmMethodOf,
} from "@/lib/auth/confirm-identity";
import { requestCookies } from "@/lib/auth/options";
import { changeOwnPassword, passwordChangeSchema } from "@/lib/auth/password-change";
import { renewSession } from "@/lib/auth/session";
import { endOtherSessions } from "@/lib/auth/sessions";
import { browserHashOf } from "@/lib/auth/sign-in";
import { beginTotpSetup, confirmTotpSetup, removeTotp } from "@/lib/auth/two-factor/authenticator-app";
import { regenerateRecoveryCodes } from "@/lib/auth/two-factor/factors";
import { maxPasskeyResponseLength } from "@/lib/auth/two-factor/passkey-answers";
import { addPasskey, passkeyRegistrationOptions, removePasskey } from "@/lib/auth/two-factor/passkeys";
import { clientAddress } from "@/lib/client-address";
import { env } from "@/lib/env";
import { forgetShownAnswer, parseIdempotencyKey, personKey } from "@/lib/idempotency/keys";
import { setTokenEmails } from "@/lib/reminders/notifications";

/** Every other session of the person ends; this browser's is re-issued so it goes on. */
export const changePassword = actorAction(
  passwordChangeSchema,
  async (input, actor) => {
    const { sessionVersion } = await changeOwnPassword(actor, input);
    await renewSession(sessionVersion);
    revalidatePath("/", "layout");
    return { ok: true, message: "Your password was changed. You were signed out everywhere else." };
  },
  { whilePasswordMustChange: true },
);

/** `Email me about my tokens`: the signed-in person's own switch, nobody else's. */
export const switchTokenEmails = actorAction(z.object({ enabled: z.enum(["true", "false"]) }), async (input, actor) => {
  await setTokenEmails(actor.id, input.enabled === "true");
  revalidatePath("/settings/account");
  return { ok: true };
});

// Two-factor, passkeys, sessions and Confirm it's you (SPEC.md › Sign-in that guards every credential).

const requestAddress = async () => clientAddress(await headers(), env().TRUSTED_PROXY_HOPS);
const done = () => revalidatePath("/settings/account");
// Passkey ceremonies are bound to this browser (its browser-id cookie, given one when it has none).
const browserHash = async () => browserHashOf(await requestCookies());
const passkeyResponse = z.string().min(1).max(maxPasskeyResponseLength);
const passkeyName = z
  .string()
  .trim()
  .min(1, "Name the passkey, e.g. the device or password manager that keeps it.")
  .max(60, "Use at most 60 characters.");

/** `Set up authenticator app`: a new secret, its QR code and the secret as text. */
export const beginTotpSetupAction = actorAction(
  z.object({}),
  async (_input, actor) => {
    const { secret, uri } = await beginTotpSetup(actor);
    const qr = await QRCode.toDataURL(uri, { margin: 1, width: 200, errorCorrectionLevel: "M" });
    return { ok: true, data: { secret, uri, qr } };
  },
  { whileTwoFactorMissing: true },
);

/** `Verify` the first code: the app is on; the recovery codes come back once when two-factor turned on. */
export const confirmTotpSetupAction = actorAction(
  z.object({
    code: z.string().trim().min(1, "Enter the 6-digit code your authenticator app shows.").max(20),
    idempotencyKey: z.string().max(1000).optional(),
  }),
  async ({ code, idempotencyKey }, actor) => {
    const { recoveryCodes } = await confirmTotpSetup(actor.id, code, new Date(), {
      idempotencyKey: parseIdempotencyKey(idempotencyKey),
    });
    done();
    return {
      ok: true,
      message: "Your authenticator app is set up. Signing in now asks for its code after your password.",
      data: recoveryCodes ? { recoveryCodes } : {},
    };
  },
  { whileTwoFactorMissing: true },
);

export const removeTotpAction = actorAction(
  z.object({}),
  async (_input, actor) => {
    await removeTotp(actor.id);
    done();
    return { ok: true, message: "The authenticator app was removed." };
  },
  { confirmIdentity: true },
);

export const regenerateRecoveryCodesAction = actorAction(
  z.object({ idempotencyKey: z.string().max(1000).optional() }),
  async ({ idempotencyKey }, actor) => {
    const recoveryCodes = await regenerateRecoveryCodes(actor.id, new Date(), {
      idempotencyKey: parseIdempotencyKey(idempotencyKey),
    });
    done();
    return { ok: true, message: "New recovery codes: the old ones no longer work.", data: { recoveryCodes } };
  },
  { confirmIdentity: true },
);

/** `Add a passkey`, first half: the name checked before the browser asks, and the options of its prompt. */
export const passkeyRegistrationOptionsAction = actorAction(
  z.object({ name: passkeyName }),
  async (_input, actor) => ({
    ok: true,
    data: { options: await passkeyRegistrationOptions(actor, await browserHash()) },
  }),
  { whileTwoFactorMissing: true },
);

/** `Add a passkey`, second half: stored; the recovery codes come back once when two-factor turned on. */
export const addPasskeyAction = actorAction(
  z.object({ name: passkeyName, response: passkeyResponse, idempotencyKey: z.string().max(1000).optional() }),
  async ({ name, response, idempotencyKey }, actor) => {
    const { passkey, recoveryCodes } = await addPasskey(actor, { name, response }, await browserHash(), new Date(), {
      idempotencyKey: parseIdempotencyKey(idempotencyKey),
    });
    done();
    return {
      ok: true,
      message: `The passkey “${passkey.name}” was added. It can sign you in without your e-mail address or password.`,
      data: recoveryCodes ? { recoveryCodes } : {},
    };
  },
  { whileTwoFactorMissing: true },
);

export const removePasskeyAction = actorAction(
  z.object({ id: z.string().min(1).max(1400) }),
  async ({ id }, actor) => {
    await removePasskey(actor, id);
    done();
    return { ok: true, message: "The passkey was removed. It can no longer sign you in." };
  },
  { confirmIdentity: true },
);

/** `Sign out` on one other session (`sessionId`), or `Sign out everywhere else` (none). */
export const signOutSessionAction = actorAction(
  z.object({ sessionId: z.string().min(1).max(100).optional() }),
  async ({ sessionId }, actor, _raw, currentSessionId) => {
    const ended = await endOtherSessions(actor, currentSessionId, sessionId);
    done();
    if (sessionId)
      return { ok: true, message: ended ? "That session was signed out." : "That session had already ended." };
    return { ok: true, message: ended ? `Signed out everywhere else (${ended}).` : "You were signed in nowhere else." };
  },
);

/** `Confirm it's you`: the session counts as recently authenticated for the next 10 minutes. */
export const confirmIdentityAction = actorAction(
  z.object({
    code: z.string().max(40).optional(),
    password: z.string().max(200).optional(),
    passkey: passkeyResponse.optional(),
  }),
  async ({ passkey, ...answer }, actor, _raw, sessionId) => {
    if (passkey) {
      await confirmIdentityWithPasskey(actor, sessionId, passkey, await browserHash(), await requestAddress());
    } else {
      await confirmIdentity(actor, sessionId, answer, await requestAddress());
    }
    return { ok: true };
  },
  { whileTwoFactorMissing: true },
);

/** `Use a passkey` in `Confirm it's you`: the options of the browser's prompt, for the person's passkeys. */
export const passkeyConfirmOptionsAction = actorAction(
  z.object({}),
  async (_input, actor) => ({
    ok: true,
    data: { options: await beginPasskeyConfirmation(actor.id, await browserHash()) },
  }),
  { whileTwoFactorMissing: true },
);

/** What `Confirm it's you` asks this person for: a code (two-factor on) or their password. */
export const confirmMethodAction = actorAction(
  z.object({}),
  async (_input, actor) => ({ ok: true, data: await confirmMethodOf(actor.id) }),
  { whileTwoFactorMissing: true },
);

/**
 * A dialog showed what the answer to `idempotencyKey` made (a secret, a private key, recovery
 * codes): the stored answer is forgotten, so it lives on only where the person put it. Nothing is
 * revalidated: the page around the dialog has not changed.
 */
export const forgetShownAnswerAction = actorAction(
  z.object({ idempotencyKey: z.string().min(1).max(200) }),
  async ({ idempotencyKey }, actor) => {
    await forgetShownAnswer(personKey(actor.id), idempotencyKey);
    return { ok: true };
  },
  { unreadable: "The dialog sent no key.", whileTwoFactorMissing: true },
);
