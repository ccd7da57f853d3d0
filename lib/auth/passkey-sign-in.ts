import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { db } from "@/lib/db/client";
import {
  browserHashOf,
  type CookieJar,
  finishSecondStep,
  origin,
  pendingSecondStep,
  type RequestHeaders,
  type SignedInUser,
  SignInRefused,
} from "./sign-in";
import { throttledSignIn } from "./throttle";
import { credentialIdOf } from "./two-factor/passkey-answers";
import {
  beginPasskeyCeremony,
  passkeyAuthenticationOptions,
  verifyPasskeyAssertion,
} from "./two-factor/passkey-assertions";
import { claimCeremony } from "./two-factor/passkeys";

/**
 * Signing in with a passkey (SPEC.md › Sign-in): `sign-in`, from /login with no e-mail or password
 * (a discoverable passkey names its person), or `second-factor`, the second step of a person with
 * two-factor after a right password, in the browser that passed the first. Failed answers are
 * throttled like passwords (per address, never per person alone).
 */
export type PasskeyFlow = "sign-in" | "second-factor";

export const passkeyFlowOf = (value: unknown): PasskeyFlow => (value === "second-factor" ? "second-factor" : "sign-in");

/** The options of the browser's passkey prompt, for this flow in this browser. */
export async function passkeySignInOptions(
  flow: PasskeyFlow,
  jar: CookieJar,
  now = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  if (flow === "sign-in") return beginPasskeyCeremony("passkey-sign-in", null, browserHashOf(jar), now);
  const step = await pendingSecondStep(jar, now);
  if (!step) throw new SignInRefused("step-expired");
  const options = await passkeyAuthenticationOptions(step.userId, "preferred");
  if (!options.allowCredentials?.length) throw new SignInRefused("passkey-failed");
  // The challenge rides on the step's own row: this browser's, over when the step is, used once.
  const { count } = await db().signInChallenge.updateMany({
    where: { id: step.challengeId, purpose: "second-factor", expiresAt: { gt: now } },
    data: { challenge: options.challenge },
  });
  if (count !== 1) throw new SignInRefused("step-expired");
  return options;
}

/** Uses up the passkey challenge of a second step (the step itself stays for a code). */
async function claimStepChallenge(stepId: string, challenge: string, now: Date): Promise<boolean> {
  const { count } = await db().signInChallenge.updateMany({
    where: { id: stepId, purpose: "second-factor", challenge, expiresAt: { gt: now } },
    data: { challenge: null },
  });
  return count === 1;
}

const activePerson = (id: string) =>
  db().user.findFirst({
    where: { id, removedAt: null },
    select: { id: true, email: true, name: true, sessionVersion: true },
  });

/** The passkey's answer (`response`, the JSON of `navigator.credentials.get`) for `flow`: the person it signs in. */
export async function passkeyStep(
  credentials: { response?: unknown; flow?: unknown },
  headers: RequestHeaders,
  jar: CookieJar,
  now = new Date(),
): Promise<SignedInUser> {
  const from = origin(headers);
  if (passkeyFlowOf(credentials.flow) === "second-factor") {
    const step = await pendingSecondStep(jar, now);
    const user = step && (await activePerson(step.userId));
    if (!step || !user) throw new SignInRefused("step-expired");
    // The same counter as the step's codes: a passkey is one more way to answer it.
    const result = await throttledSignIn(`second-factor:${user.email}`, from.address, () =>
      verifyPasskeyAssertion(
        credentials.response,
        {
          userId: user.id,
          claim: (challenge) => claimStepChallenge(step.challengeId, challenge, now),
          requireUserVerification: false,
        },
        now,
      ),
    );
    if (!result.ok) throw new SignInRefused(result.reason === "invalid" ? "passkey-failed" : "throttled");
    await finishSecondStep(step.challengeId, jar);
    return { ...user, ...from, browserHash: browserHashOf(jar) };
  }
  const browserHash = browserHashOf(jar);
  // No e-mail is known before the answer is verified: the credential it names stands in for it.
  const result = await throttledSignIn(`passkey:${credentialIdOf(credentials.response)}`, from.address, async () => {
    const use = await verifyPasskeyAssertion(
      credentials.response,
      {
        userId: null,
        claim: (challenge) => claimCeremony("passkey-sign-in", browserHash, null, challenge, now),
        requireUserVerification: true,
      },
      now,
    );
    return use && (await activePerson(use.userId));
  });
  if (!result.ok) throw new SignInRefused(result.reason === "invalid" ? "passkey-failed" : "throttled");
  return { ...result.actor, ...from, browserHash };
}
