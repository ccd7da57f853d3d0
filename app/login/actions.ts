"use server";

import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { requestCookies } from "@/lib/auth/options";
import { passkeyFlowOf, passkeySignInOptions } from "@/lib/auth/passkey-sign-in";
import { SignInRefused } from "@/lib/auth/sign-in";
import { describeError, log } from "@/lib/log";

/**
 * `Sign in with a passkey` and the second step's `Use a passkey`: the options of the browser's
 * passkey prompt, its challenge kept for this browser. Refusals answer the sign-in form's codes.
 */
export async function passkeyOptionsAction(
  flow: string,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON } | { error: string }> {
  try {
    return { options: await passkeySignInOptions(passkeyFlowOf(flow), await requestCookies()) };
  } catch (error) {
    if (error instanceof SignInRefused) return { error: error.reason };
    log.error("passkey options failed", { cause: describeError(error) });
    return { error: "unavailable" };
  }
}
