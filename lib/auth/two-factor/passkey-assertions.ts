import {
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from "@simplewebauthn/server";
import { db } from "@/lib/db/client";
import { challengeOf, parseAssertion, userHandleOf } from "./passkey-answers";
import { passkeyCeremonyLifetimeMs, passkeysOf, relyingParty, saveCeremony } from "./passkeys";

/**
 * Using a passkey: to sign in with no e-mail or password, as the second step after a password, or
 * to `Confirm it's you`. The options of the browser's prompt, and its answer verified.
 */

/**
 * What `navigator.credentials.get` needs. With a person, their passkeys are the only ones allowed;
 * without one (a discoverable sign-in) the browser offers every passkey it has for this site.
 */
export async function passkeyAuthenticationOptions(
  userId: string | null,
  userVerification: "required" | "preferred",
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: relyingParty().id,
    allowCredentials: userId ? await passkeysOf(userId) : [],
    userVerification,
    timeout: passkeyCeremonyLifetimeMs,
  });
}

/**
 * A sign-in with no e-mail (`userId` null: the passkey names the person) or `Confirm it's you`
 * (the signed-in person's passkeys): its options, and its challenge kept for this browser.
 */
export async function beginPasskeyCeremony(
  purpose: "passkey-sign-in" | "passkey-confirm",
  userId: string | null,
  browserHash: string,
  now = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  // With no password before it, the passkey must verify its user (PIN, biometrics) too.
  const options = await passkeyAuthenticationOptions(userId, purpose === "passkey-sign-in" ? "required" : "preferred");
  await saveCeremony(purpose, userId, browserHash, options.challenge, now);
  return options;
}

export interface PasskeyAssertionCheck {
  /** The person the passkey must belong to, or null when the passkey names them. */
  userId: string | null;
  /** Uses up the challenge the answer signed; false when it is not this step's, or used, or over. */
  claim: (challenge: string) => Promise<boolean>;
  requireUserVerification: boolean;
}

/**
 * An answer of `navigator.credentials.get`, checked: its challenge claimed first (so any answer,
 * right or wrong, uses it up), then the passkey found by its credential id (a removed passkey or
 * person is none), its person the one expected, the signature and counter verified. The passkey's
 * counter and last use are updated. Null when any of it fails.
 */
export async function verifyPasskeyAssertion(
  raw: unknown,
  check: PasskeyAssertionCheck,
  now = new Date(),
): Promise<{ passkeyId: string; userId: string } | null> {
  const response = parseAssertion(raw);
  const challenge = response && challengeOf(response.response.clientDataJSON);
  if (!response || !challenge || !(await check.claim(challenge))) return null;
  const passkey = await db().passkey.findFirst({ where: { id: response.id, user: { removedAt: null } } });
  if (!passkey || (check.userId !== null && passkey.userId !== check.userId)) return null;
  const handle = response.response.userHandle;
  if (handle && handle !== userHandleOf(passkey.userId)) return null;
  const rp = relyingParty();
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.id,
      publicKey: passkey.publicKey,
      counter: Number(passkey.counter),
      transports: passkey.transports,
    },
    requireUserVerification: check.requireUserVerification,
  }).catch(() => null);
  if (!verified?.verified) return null;
  // Conditional on the counter read: of two answers racing past it, only one is taken.
  const { count } = await db().passkey.updateMany({
    where: { id: passkey.id, counter: passkey.counter },
    data: { counter: BigInt(verified.authenticationInfo.newCounter), lastUsedAt: now },
  });
  return count === 1 ? { passkeyId: passkey.id, userId: passkey.userId } : null;
}
