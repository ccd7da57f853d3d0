import { createHash } from "node:crypto";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { conflict, invalid } from "@/lib/refusal";

/**
 * Idempotency keys: a change that makes something to be shown once (a token, a secret, a key
 * pair, recovery codes) is sent with a key, one per press of its button, kept while its dialog is
 * open; the management API takes one as `Idempotency-Key`. The first request with a key claims it
 * in `IdempotentAnswer`, in the transaction of the change itself, and writes its answer there
 * before committing; the same key sent again gets that answer and changes nothing. A lost answer
 * never makes a second one of anything.
 *
 * - One row per actor and key (`user:<id>`, `integration:<id>`): another actor's key is another
 *   key. The primary key makes it safe across instances: a duplicate sent at the same moment waits
 *   on the claim (INSERT … ON CONFLICT) until the first commits, then reads its answer; if the
 *   first failed, its claim rolled back with it and the duplicate runs as the first.
 * - The same key with another request (operation, target or body) is refused (409 `conflict`).
 * - The answer is sealed (AES-256-GCM, key derived from SERVER_SECRET, as webhook secrets): a
 *   database dump alone reveals no secret. A screen's answer is forgotten as soon as the browser
 *   says it showed it (`forgetShownAnswer`); the API's is kept the 24 hours a client may retry.
 *   Every row is pruned 24 hours after it was written (lib/maintenance/prune-steps.ts).
 */

/** How long a key answers the same; the pruner deletes its row after it. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const ENCRYPTION_PURPOSE = "idempotent-answer";
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

export const idempotencyKeyRule =
  "An idempotency key is 1 to 200 visible ASCII characters without spaces (a UUID, for example).";

/** The key as sent, checked; undefined when none was sent. */
export function parseIdempotencyKey(value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!KEY_PATTERN.test(value)) throw invalid(idempotencyKeyRule);
  return value;
}

/** A person's keys (a screen's dialogs): `user:<id>`; an integration's are `integration:<id>`. */
export function personKey(userId: string): string {
  return `user:${userId}`;
}

export interface IdempotentRequest {
  actorKey: string;
  key: string;
  /** SHA-256 of the canonical request (see `idempotentRequest`). */
  requestHash: string;
}

/** A person's claim of `key` for `request` (a screen's dialog), or none without a person or a key. */
export function personRequest(
  userId: string | undefined,
  key: string | undefined,
  request: unknown,
): IdempotentRequest | undefined {
  return userId && key ? idempotentRequest(personKey(userId), key, request) : undefined;
}

/** The claim of `key` by `actorKey` for `request` (operation, target and body; key order does not matter). */
export function idempotentRequest(actorKey: string, key: string, request: unknown): IdempotentRequest {
  return {
    actorKey,
    key,
    requestHash: createHash("sha256").update(canonicalJson(request)).digest("hex"),
  };
}

function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export const keyReusedMessage =
  "This idempotency key was already used for another request (another operation, integration or body). Send a new key for a new request.";

/** Thrown inside the transaction when the key already holds an answer: the caller hands that answer back. */
export class AnsweredBefore extends Error {
  override name = "AnsweredBefore";
  constructor(readonly answer: unknown) {
    super("answered before");
  }
}

/**
 * The first statement of the change's transaction: claims the key (or an expired row of it). Another
 * request's claim still open makes this wait until it ends. Throws `AnsweredBefore` with the stored
 * answer when the key was used for the same request, a conflict when for another.
 */
export async function claimIdempotencyKey(tx: Tx, request: IdempotentRequest, now: Date): Promise<void> {
  // As timestamp(3) in UTC, the columns' type (a Date would be bound as timestamptz).
  const at = Prisma.sql`${now.toISOString()}::timestamp(3)`;
  const expiresAt = Prisma.sql`${new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS).toISOString()}::timestamp(3)`;
  const claimed = await tx.$executeRaw`
    INSERT INTO "IdempotentAnswer" ("actorKey", "key", "requestHash", "answerEncrypted", "createdAt", "expiresAt")
    VALUES (${request.actorKey}, ${request.key}, ${request.requestHash}, '', ${at}, ${expiresAt})
    ON CONFLICT ("actorKey", "key") DO UPDATE SET "requestHash" = EXCLUDED."requestHash",
      "answerEncrypted" = '', "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"
    WHERE "IdempotentAnswer"."expiresAt" <= ${at}`;
  if (claimed > 0) return;
  const row = await tx.idempotentAnswer.findUnique({
    where: { actorKey_key: { actorKey: request.actorKey, key: request.key } },
    select: { requestHash: true, answerEncrypted: true },
  });
  if (!row || row.requestHash !== request.requestHash) throw conflict(keyReusedMessage);
  throw new AnsweredBefore(openAnswer(row.answerEncrypted));
}

/**
 * Before a change whose own checks would refuse a repeat (it is already done): throws
 * `AnsweredBefore` when the key already holds a committed answer, a conflict when it was used for
 * another request. The claim in the change's transaction stays what makes it once.
 */
export async function throwIfAnsweredBefore(request: IdempotentRequest, now: Date): Promise<void> {
  const row = await db().idempotentAnswer.findUnique({
    where: { actorKey_key: { actorKey: request.actorKey, key: request.key } },
    select: { requestHash: true, answerEncrypted: true, expiresAt: true },
  });
  if (!row || row.answerEncrypted === "" || row.expiresAt.getTime() <= now.getTime()) return;
  if (row.requestHash !== request.requestHash) throw conflict(keyReusedMessage);
  throw new AnsweredBefore(openAnswer(row.answerEncrypted));
}

/** The last statement of the change's transaction: the answer the key gives from now on. */
export async function recordAnswer(tx: Tx, request: IdempotentRequest, answer: unknown): Promise<void> {
  await tx.idempotentAnswer.update({
    where: { actorKey_key: { actorKey: request.actorKey, key: request.key } },
    data: { answerEncrypted: sealAnswer(answer) },
  });
}

/**
 * Inside the change's transaction: claims the key first (when there is one), runs `change`, and
 * records what `stored` keeps of its answer last.
 */
export async function claimedOnce<T>(
  tx: Tx,
  request: IdempotentRequest | undefined,
  now: Date,
  change: () => Promise<T>,
  stored: (answer: T) => unknown = (answer) => answer,
): Promise<T> {
  if (!request) return change();
  await claimIdempotencyKey(tx, request, now);
  const answer = await change();
  await recordAnswer(tx, request, stored(answer));
  return answer;
}

/** What a screen's answer becomes once the browser said it showed it. */
const FORGOTTEN = { forgotten: true } as const;

export const answerForgottenMessage =
  "This was already done, and what it made was shown then; it is not kept. If it was not saved, make a new one.";

/**
 * Runs `change`; when its key was answered before, that answer (revived by `revive`) instead, or a
 * conflict once a screen showed it and it was forgotten.
 */
export async function answeredOnce<T>(change: () => Promise<T>, revive: (stored: unknown) => T): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (!(error instanceof AnsweredBefore)) throw error;
    const answer = error.answer as { forgotten?: unknown } | null;
    if (answer && typeof answer === "object" && answer.forgotten === true) throw conflict(answerForgottenMessage);
    return revive(error.answer);
  }
}

/**
 * A screen showed the answer to `key`: it is forgotten (the dialog that could send the key again is
 * gone), so the secret it carried lives on only where the person put it. False when there is none.
 */
export async function forgetShownAnswer(actorKey: string, key: string, now: Date = new Date()): Promise<boolean> {
  const { count } = await db().idempotentAnswer.updateMany({
    where: { actorKey, key, answerEncrypted: { not: "" }, expiresAt: { gt: now } },
    data: { answerEncrypted: sealAnswer(FORGOTTEN) },
  });
  return count > 0;
}

/** Dates survive the round trip as `{"$date": iso}` (an answer holds no other object of that shape). */
export function sealAnswer(answer: unknown): string {
  const json = JSON.stringify(answer, function (this: Record<string, unknown>, key, value) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : value;
  });
  return encrypt(json, ENCRYPTION_PURPOSE);
}

export function openAnswer(sealed: string): unknown {
  return JSON.parse(decrypt(sealed, ENCRYPTION_PURPOSE), (_key, value) =>
    value && typeof value === "object" && !Array.isArray(value) && typeof value.$date === "string"
      ? new Date(value.$date)
      : value,
  );
}
