import { db, type Tx } from "@/lib/db/client";
import { answeredOnce, claimIdempotencyKey, type IdempotentRequest, recordAnswer } from "@/lib/idempotency/keys";
import { notFound } from "@/lib/refusal";
import {
  auditSecurityEvent,
  mailSecurityEvent,
  type SecurityEvent,
  type SecurityEventPerson,
} from "../security-events";
import { newRecoveryCodes, normalizeRecoveryCode, recoveryCodeHash } from "./recovery-codes";

/**
 * The one way a person's second factors change (lib/auth/two-factor/factors.ts and its siblings):
 * in a transaction that gives or removes recovery codes as two-factor turns on or off, audits each
 * event, and e-mails once committed.
 */

/** Whether the person has two-factor on, counted inside a transaction. */
export async function twoFactorOn(tx: Tx, userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([
    tx.totpFactor.count({ where: { userId, confirmedAt: { not: null } } }),
    tx.passkey.count({ where: { userId } }),
  ]);
  return totp + passkeys > 0;
}

/** Replaces the person's recovery codes with ten new ones; answers them (shown once). */
export async function replaceRecoveryCodes(tx: Tx, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({
    data: codes.map((code) => ({ userId, codeHash: recoveryCodeHash(normalizeRecoveryCode(code) ?? code) })),
  });
  return codes;
}

export async function personOf(userId: string): Promise<SecurityEventPerson> {
  const person = await db().user.findUnique({
    where: { id: userId },
    select: { id: true, companyId: true, email: true },
  });
  if (!person) throw notFound("There is no such person.");
  return person;
}

/**
 * A change to the person's factors, in one transaction: `change` runs, then two-factor turning on
 * gives new recovery codes and turning off removes them, each event is audited, and the e-mails go
 * out once it is committed. With an idempotency key (`once`), the same key again answers the same
 * result and recovery codes, and changes nothing.
 */
export async function changeFactors<T>(
  person: SecurityEventPerson,
  change: (tx: Tx) => Promise<{ result: T; events: SecurityEvent[] }>,
  now: Date,
  actorUserId: string | null = person.id,
  once?: IdempotentRequest,
): Promise<FactorChange<T>> {
  return answeredOnce(
    () => changeFactorsOnce(person, change, now, actorUserId, once),
    (stored) => ({ ...(stored as Omit<FactorChange<T>, "events">), events: [] }),
  );
}

export interface FactorChange<T> {
  result: T;
  /** Ten new codes, shown once, when two-factor turned on. */
  recoveryCodes?: string[];
  events: SecurityEvent[];
}

async function changeFactorsOnce<T>(
  person: SecurityEventPerson,
  change: (tx: Tx) => Promise<{ result: T; events: SecurityEvent[] }>,
  now: Date,
  actorUserId: string | null,
  once: IdempotentRequest | undefined,
): Promise<FactorChange<T>> {
  const outcome = await db().$transaction(async (tx) => {
    if (once) await claimIdempotencyKey(tx, once, now);
    const wasOn = await twoFactorOn(tx, person.id);
    const { result, events } = await change(tx);
    const isOn = await twoFactorOn(tx, person.id);
    let recoveryCodes: string[] | undefined;
    const all = [...events];
    if (!wasOn && isOn) {
      recoveryCodes = await replaceRecoveryCodes(tx, person.id);
      all.push({ kind: "two_factor_enabled" });
    } else if (wasOn && !isOn) {
      await tx.recoveryCode.deleteMany({ where: { userId: person.id } });
      all.push({ kind: "two_factor_disabled", by: actorUserId ? "person" : "operator" });
    }
    for (const event of all) await auditSecurityEvent(tx, person, event, actorUserId);
    if (once) await recordAnswer(tx, once, { result, recoveryCodes });
    return { result, recoveryCodes, events: all };
  });
  for (const event of outcome.events) mailSecurityEvent(person, event, now);
  return outcome;
}
