import { verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { invalid } from "@/lib/refusal";
import { markAuthenticated } from "./sessions";
import { throttledSignIn } from "./throttle";
import { recordRecoveryCodeUse, redeemSecondFactorCode, secondFactorsOf } from "./two-factor/factors";
import { beginPasskeyCeremony, verifyPasskeyAssertion } from "./two-factor/passkey-assertions";
import { claimCeremony } from "./two-factor/passkeys";

/**
 * `Confirm it's you` (SPEC.md › Sign-in that guards every credential): a person whose last
 * authentication is older than 10 minutes proves it again with their strongest factor (a code
 * when two-factor is on, else their password) before a credential is shown or changed. Wrong
 * answers are throttled like sign-ins, per (person, address) and per address.
 */
export type ConfirmMethod = "code" | "password";

const tooManyWrong = "Too many wrong answers. For your safety, wait 15 minutes before trying again.";

/** What the dialog asks this person for (passkeys are offered beside the code when they have one). */
export async function confirmMethodOf(userId: string): Promise<{ method: ConfirmMethod; passkey: boolean }> {
  const factors = await secondFactorsOf(userId);
  return { method: factors.on ? "code" : "password", passkey: factors.passkeys.length > 0 };
}

export async function confirmIdentity(
  person: { id: string; email: string },
  sessionId: string,
  answer: { code?: string; password?: string },
  address: string,
  now = new Date(),
): Promise<void> {
  const { method } = await confirmMethodOf(person.id);
  const field = method === "code" ? "code" : "password";
  const typed = (method === "code" ? answer.code : answer.password) ?? "";
  if (!typed.trim()) {
    throw invalid(method === "code" ? "Enter the code from your authenticator app." : "Enter your password.", field);
  }
  const result = await throttledSignIn(`confirm:${person.email}`, address, async () => {
    if (method === "password") {
      const row = await db().user.findUnique({ where: { id: person.id }, select: { passwordHash: true } });
      return row && (await verifyPassword(typed, row.passwordHash)) ? { via: "password" as const } : null;
    }
    return redeemSecondFactorCode(person.id, typed, now);
  });
  if (!result.ok) {
    throw invalid(
      result.reason === "throttled"
        ? tooManyWrong
        : method === "code"
          ? "That code is not right. Enter the 6-digit code your authenticator app shows now, or a recovery code."
          : "That password is not right.",
      field,
    );
  }
  if (result.actor.via === "recovery-code") await recordRecoveryCodeUse(person.id, address, result.actor.left, now);
  await markAuthenticated(sessionId, now);
}

/** `Use a passkey` in the dialog: the options of the browser's prompt, limited to the person's passkeys. */
export async function beginPasskeyConfirmation(userId: string, browserHash: string, now = new Date()) {
  return beginPasskeyCeremony("passkey-confirm", userId, browserHash, now);
}

/** `Use a passkey` answered: one of the person's passkeys, for the challenge this browser was given. */
export async function confirmIdentityWithPasskey(
  person: { id: string; email: string },
  sessionId: string,
  response: string,
  browserHash: string,
  address: string,
  now = new Date(),
): Promise<void> {
  const result = await throttledSignIn(`confirm:${person.email}`, address, () =>
    verifyPasskeyAssertion(
      response,
      {
        userId: person.id,
        claim: (challenge) => claimCeremony("passkey-confirm", browserHash, person.id, challenge, now),
        requireUserVerification: false,
      },
      now,
    ),
  );
  if (!result.ok) {
    throw invalid(
      result.reason === "throttled"
        ? tooManyWrong
        : "The passkey could not confirm it's you. Try it again, or enter a code from your authenticator app or a recovery code.",
    );
  }
  await markAuthenticated(sessionId, now);
}
