import { decrypt } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { idempotentRequest, personKey } from "@/lib/idempotency/keys";
import { conflict, notFound } from "@/lib/refusal";
import { auditSecurityEvent, mailSecurityEvent, type SecurityEvent } from "../security-events";
import { changeFactors, personOf, replaceRecoveryCodes, twoFactorOn } from "./change-factors";
import { normalizeRecoveryCode, recoveryCodeHash } from "./recovery-codes";
import { matchingTotpStep } from "./totp";

/**
 * A person's second factors (SPEC.md › Sign-in that guards every credential › Two-factor
 * authentication): an authenticator app (TOTP) and passkeys. Two-factor is on while they have at
 * least one; turning it on gives ten recovery codes, turning it off removes them.
 */

/** The encryption purpose of authenticator-app secrets. */
export const totpPurpose = "totp-secret";

export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface SecondFactors {
  /** An authenticator app is set up (confirmed by a first good code). */
  totp: boolean;
  passkeys: PasskeyView[];
  recoveryCodesLeft: number;
  /** Two-factor authentication is on: an authenticator app or a passkey. */
  on: boolean;
}

export async function secondFactorsOf(userId: string): Promise<SecondFactors> {
  const [totp, passkeys, recoveryCodesLeft] = await Promise.all([
    db().totpFactor.findUnique({ where: { userId }, select: { confirmedAt: true } }),
    db().passkey.findMany({
      where: { userId },
      select: { id: true, name: true, createdAt: true, lastUsedAt: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    db().recoveryCode.count({ where: { userId, usedAt: null } }),
  ]);
  const hasTotp = Boolean(totp?.confirmedAt);
  return { totp: hasTotp, passkeys, recoveryCodesLeft, on: hasTotp || passkeys.length > 0 };
}

/**
 * `Regenerate recovery codes`: ten new ones replace every old one. Only while two-factor is on.
 * Sent again with the same idempotency key, the same ten, and nothing replaced again.
 */
export async function regenerateRecoveryCodes(
  userId: string,
  now = new Date(),
  options: { idempotencyKey?: string } = {},
): Promise<string[]> {
  const person = await personOf(userId);
  const { result } = await changeFactors(
    person,
    async (tx) => {
      if (!(await twoFactorOn(tx, userId))) {
        throw conflict(
          "Recovery codes come with two-factor authentication: set up an authenticator app or a passkey first.",
        );
      }
      return { result: await replaceRecoveryCodes(tx, userId), events: [{ kind: "recovery_codes_regenerated" }] };
    },
    now,
    person.id,
    options.idempotencyKey
      ? idempotentRequest(personKey(userId), options.idempotencyKey, { operation: "recoveryCodes.regenerate" })
      : undefined,
  );
  return result;
}

export type SecondFactorMatch = { via: "totp" } | { via: "recovery-code"; left: number };

/**
 * A code typed at the second step or in `Confirm it's you`: a TOTP code of the person's app (each
 * step's code accepted once, across instances: the step is claimed in one statement), or one of
 * their unused recovery codes (used up by it). Null when it is neither.
 */
export async function redeemSecondFactorCode(
  userId: string,
  typed: string,
  now = new Date(),
): Promise<SecondFactorMatch | null> {
  const code = typed.trim();
  if (/^\d{6}$/.test(code.replace(/\s/g, ""))) {
    const factor = await db().totpFactor.findUnique({ where: { userId } });
    if (!factor?.confirmedAt) return null;
    const step = matchingTotpStep(decrypt(factor.secretEncrypted, totpPurpose), code.replace(/\s/g, ""), now);
    if (step === null) return null;
    const { count } = await db().totpFactor.updateMany({
      where: { userId, confirmedAt: { not: null }, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] },
      data: { lastUsedStep: step },
    });
    return count === 1 ? { via: "totp" } : null;
  }
  const normalized = normalizeRecoveryCode(code);
  if (!normalized) return null;
  const { count } = await db().recoveryCode.updateMany({
    where: { userId, codeHash: recoveryCodeHash(normalized), usedAt: null },
    data: { usedAt: now },
  });
  if (count !== 1) return null;
  const left = await db().recoveryCode.count({ where: { userId, usedAt: null } });
  return { via: "recovery-code", left };
}

/**
 * After a recovery code signed someone in: audited, e-mailed, and listed under Notifications.
 */
export async function recordRecoveryCodeUse(
  userId: string,
  address: string,
  left: number,
  now = new Date(),
): Promise<void> {
  const person = await personOf(userId);
  const event: SecurityEvent = { kind: "recovery_code_used", address, left };
  await db().$transaction(async (tx) => {
    await auditSecurityEvent(tx, person, event);
    await tx.notification.create({
      data: {
        userId,
        kind: "recovery_code_used",
        milestone: `recovery-code:${now.toISOString()}`,
        dueDate: now.toISOString().slice(0, 10),
        createdAt: now,
        // Mailed here, not by the reminder e-mails (which follow `Email me about my tokens`).
        emailedAt: now,
      },
    });
  });
  mailSecurityEvent(person, event, now);
}

/**
 * The operator's `user:reset-2fa` (a lost phone): every second factor and recovery code of the
 * person removed, and every session of theirs ended.
 */
export async function resetTwoFactor(email: string, now = new Date()): Promise<{ id: string }> {
  const user = await db().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { id: true, companyId: true, email: true, removedAt: true },
  });
  if (!user) throw notFound(`There is no user with the e-mail address ${email}.`);
  await changeFactors(
    user,
    async (tx) => {
      await tx.totpFactor.deleteMany({ where: { userId: user.id } });
      await tx.passkey.deleteMany({ where: { userId: user.id } });
      await tx.recoveryCode.deleteMany({ where: { userId: user.id } });
      await tx.user.update({ where: { id: user.id }, data: { sessionVersion: { increment: 1 } } });
      await tx.userSession.updateMany({ where: { userId: user.id, endedAt: null }, data: { endedAt: now } });
      return { result: undefined, events: [] };
    },
    now,
    null,
  );
  return { id: user.id };
}

/** Which of `userIds` have two-factor on (the Team screen's `Two-factor` column). */
export async function twoFactorOnFor(userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const [totp, passkeys] = await Promise.all([
    db().totpFactor.findMany({
      where: { userId: { in: [...userIds] }, confirmedAt: { not: null } },
      select: { userId: true },
    }),
    db().passkey.findMany({ where: { userId: { in: [...userIds] } }, select: { userId: true }, distinct: ["userId"] }),
  ]);
  return new Set([...totp, ...passkeys].map((row) => row.userId));
}
