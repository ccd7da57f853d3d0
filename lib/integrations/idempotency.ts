import { createHash } from "node:crypto";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { conflict, invalid } from "@/lib/refusal";
import { isIntegrationActor, type LifecycleActor } from "./access";

/**
 * Idempotency keys of creates and rotations (SPEC.md › What a person can trust on it): a screen's
 * dialog sends one per press of its button and keeps it while it is open; the management API takes
 * one as `Idempotency-Key`. The first request with a key claims it in `IdempotentAnswer`, in the
 * transaction of the change itself, and writes its answer there before committing; the same key
 * sent again gets that answer, token included, and changes nothing.
 *
 * - One row per actor and key (`user:<id>`, `integration:<id>`): another actor's key is another
 *   key. The primary key makes it safe across instances: a duplicate sent at the same moment waits
 *   on the claim (INSERT … ON CONFLICT) until the first commits, then reads its answer; if the
 *   first failed, its claim rolled back with it and the duplicate runs as the first.
 * - The same key with another request (operation, target or body) is refused (409 `conflict`).
 * - The answer is sealed (AES-256-GCM, key derived from SERVER_SECRET, as webhook secrets): a
 *   database dump alone reveals no token. A screen's answer loses its token as soon as the browser
 *   says it showed it (`confirmTokenShown`); the API's keeps it the 24 hours a client may retry.
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

/** Whose keys these are: a person's and an integration's never meet. */
export function actorKeyOf(actor: LifecycleActor): string {
  return isIntegrationActor(actor) ? `integration:${actor.integrationId}` : `user:${actor.id}`;
}

export interface IdempotentRequest {
  actorKey: string;
  key: string;
  /** SHA-256 of the canonical request (see `idempotentRequest`). */
  requestHash: string;
}

/** The claim of `key` by `actor` for `request` (operation, target and body; key order does not matter). */
export function idempotentRequest(actor: LifecycleActor, key: string, request: unknown): IdempotentRequest {
  return {
    actorKey: actorKeyOf(actor),
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

/** The last statement of the change's transaction: the answer the key gives from now on. */
export async function recordAnswer(tx: Tx, request: IdempotentRequest, answer: unknown): Promise<void> {
  await tx.idempotentAnswer.update({
    where: { actorKey_key: { actorKey: request.actorKey, key: request.key } },
    data: { answerEncrypted: sealAnswer(answer) },
  });
}

/** Runs `change`; when its key was answered before, that answer (revived by `revive`) instead. */
export async function answeredOnce<T>(change: () => Promise<T>, revive: (stored: unknown) => T): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof AnsweredBefore) return revive(error.answer);
    throw error;
  }
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

/** A stored answer of an issued token: the token is null once a screen showed it. */
interface StoredIssue {
  integration: { token: { id: string } };
  token: string | null;
}

/**
 * A screen's token dialog showed the token the answer to `key` carried: its token row stops reading
 * `Token never shown`, and the stored answer forgets the token (the dialog that could send the key
 * again is gone). Only the actor who sent the key reaches its answer. False when there is none.
 */
export async function confirmTokenShown(actor: LifecycleActor, key: string, now: Date = new Date()): Promise<boolean> {
  const where = { actorKey_key: { actorKey: actorKeyOf(actor), key } };
  const row = await db().idempotentAnswer.findUnique({ where, select: { answerEncrypted: true, expiresAt: true } });
  if (!row || row.answerEncrypted === "" || row.expiresAt.getTime() <= now.getTime()) return false;
  const answer = openAnswer(row.answerEncrypted) as StoredIssue;
  if (answer.token === null) return true;
  await db().$transaction([
    db().privateIntegrationToken.updateMany({
      where: { id: answer.integration.token.id, shownAt: null },
      data: { shownAt: now },
    }),
    db().idempotentAnswer.update({ where, data: { answerEncrypted: sealAnswer({ ...answer, token: null }) } }),
  ]);
  return true;
}
