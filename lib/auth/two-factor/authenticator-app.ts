import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { answeredOnce, idempotentRequest, personKey, throwIfAnsweredBefore } from "@/lib/idempotency/keys";
import { conflict, invalid, notFound } from "@/lib/refusal";
import { changeFactors, personOf } from "./change-factors";
import { totpPurpose } from "./factors";
import { matchingTotpStep, newTotpSecret, totpUri } from "./totp";

/**
 * The authenticator app (TOTP) as a second factor: set up with a QR code and confirmed by its
 * first good code (which turns two-factor on when it was off), and removed.
 */

/**
 * `Set up authenticator app`: a new secret, kept unconfirmed until its first good code. Answers the
 * secret (base32) and the `otpauth://` URI; starting again replaces an unconfirmed one.
 */
export async function beginTotpSetup(person: { id: string; email: string }): Promise<{ secret: string; uri: string }> {
  const existing = await db().totpFactor.findUnique({ where: { userId: person.id }, select: { confirmedAt: true } });
  if (existing?.confirmedAt) {
    throw conflict("An authenticator app is already set up. Remove it first to set up another.");
  }
  const secret = newTotpSecret();
  const secretEncrypted = encrypt(secret, totpPurpose);
  await db().totpFactor.upsert({
    where: { userId: person.id },
    create: { userId: person.id, secretEncrypted },
    update: { secretEncrypted, confirmedAt: null, lastUsedStep: null },
  });
  return { secret, uri: totpUri(secret, person.email) };
}

const wrongCode =
  "That code is not right. Enter the 6-digit code your authenticator app shows now (each code works once).";

/**
 * The first good code of a set-up turns the authenticator app on. Answers the recovery codes when
 * this turned two-factor on (shown once).
 */
export async function confirmTotpSetup(
  userId: string,
  code: string,
  now = new Date(),
  options: { idempotencyKey?: string } = {},
): Promise<{ recoveryCodes?: string[] }> {
  const once = options.idempotencyKey
    ? idempotentRequest(personKey(userId), options.idempotencyKey, { operation: "totp.confirm" })
    : undefined;
  // A repeat after a lost answer finds the app set up: the first answer, recovery codes included.
  if (once) {
    const replayed = await answeredOnce(
      () => throwIfAnsweredBefore(once, now).then(() => undefined),
      (stored) => stored as { recoveryCodes?: string[] },
    );
    if (replayed) return replayed.recoveryCodes ? { recoveryCodes: replayed.recoveryCodes } : {};
  }
  const pending = await db().totpFactor.findUnique({ where: { userId } });
  if (!pending) throw invalid("Start again with Set up authenticator app.", "code");
  if (pending.confirmedAt) throw conflict("The authenticator app is already set up.");
  const step = matchingTotpStep(decrypt(pending.secretEncrypted, totpPurpose), code.trim(), now);
  if (step === null) throw invalid(wrongCode, "code");
  const person = await personOf(userId);
  const { recoveryCodes } = await changeFactors(
    person,
    async (tx) => {
      const { count } = await tx.totpFactor.updateMany({
        where: { userId, confirmedAt: null, secretEncrypted: pending.secretEncrypted },
        data: { confirmedAt: now, lastUsedStep: step },
      });
      if (count !== 1) throw conflict("The set-up changed meanwhile. Start again with Set up authenticator app.");
      return { result: undefined, events: [{ kind: "totp_added" }] };
    },
    now,
    userId,
    once,
  );
  return recoveryCodes ? { recoveryCodes } : {};
}

/** `Remove authenticator app`. */
export async function removeTotp(userId: string, now = new Date()): Promise<void> {
  const person = await personOf(userId);
  await changeFactors(
    person,
    async (tx) => {
      const { count } = await tx.totpFactor.deleteMany({ where: { userId, confirmedAt: { not: null } } });
      if (count === 0) throw notFound("There is no authenticator app to remove.");
      return { result: undefined, events: [{ kind: "totp_removed" }] };
    },
    now,
  );
}
