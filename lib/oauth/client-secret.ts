import { timingSafeEqual } from "node:crypto";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { describeError, log } from "@/lib/log";

/**
 * Which client secrets an app accepts (SPEC.md › Client secret rotation): the current one, and the
 * one the last rotation replaced while its overlap lasts (`previousClientSecretExpiresAt` after
 * now; `Revoke previous secret` clears it). The rule is written twice, once here for a client
 * authenticated in the process (possibly from the read cache) and once in SQL for the grant
 * statements that check, in the statement that issues, that the secret is still accepted.
 */

/** The columns of an app the rule reads. */
export interface StoredSecrets {
  clientSecretHash: string;
  previousClientSecretHash: string | null;
  previousClientSecretExpiresAt: Date | null;
}

// An HMAC of nothing in particular, so an unknown client_id costs the same as a wrong secret.
const DUMMY_HASH = "0".repeat(64);

function sameHash(presented: Buffer, storedHex: string): boolean {
  const stored = Buffer.from(storedHex, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/**
 * The stored hash `clientSecret` matches at `now`: the current secret's, or the previous one's
 * inside its overlap; undefined when neither (or no app). One HMAC and always both constant-time
 * comparisons, against a dummy hash for what the app lacks (no app, no previous secret), so a
 * refusal costs the same whatever the client_id names.
 */
export function acceptedSecretHash(
  clientSecret: string,
  app: StoredSecrets | undefined,
  now: Date,
): string | undefined {
  const presented = Buffer.from(hashSecret(clientSecret), "hex");
  const current = sameHash(presented, app?.clientSecretHash ?? DUMMY_HASH);
  const previous = sameHash(presented, app?.previousClientSecretHash ?? DUMMY_HASH);
  if (!app) return undefined;
  if (current) return app.clientSecretHash;
  if (previous && app.previousClientSecretHash !== null && previousSecretWorks(app, now)) {
    return app.previousClientSecretHash;
  }
  return undefined;
}

/** Whether the app's previous secret is still inside its overlap at `now`. */
export function previousSecretWorks(app: StoredSecrets, now: Date): boolean {
  return (
    app.previousClientSecretHash !== null &&
    app.previousClientSecretExpiresAt !== null &&
    app.previousClientSecretExpiresAt.getTime() > now.getTime()
  );
}

/**
 * SQL: the app row `alias` still accepts the secret hash `secretHash` at `now` (a `timestamp(3)`
 * expression). A null hash is a client authenticated by a key (private_key_jwt): nothing to check.
 * `secretHash` is a value (or a fixed statement's Param), bound three times.
 */
export function secretStillAcceptedSql(alias: string, secretHash: unknown, now: Prisma.Sql): Prisma.Sql {
  const a = Prisma.raw(`"${alias}"`);
  return Prisma.sql`(${secretHash}::text IS NULL OR ${a}."clientSecretHash" = ${secretHash}::text
    OR (${a}."previousClientSecretHash" = ${secretHash}::text AND ${a}."previousClientSecretExpiresAt" > ${now}))`;
}

/**
 * When each client secret was last used (`ClientSecretUse`, by hash: never on `App`, whose every
 * update empties every instance's read cache). Written at most once a minute per secret by this
 * process, after the answer and never awaited by it: a failed write is logged and forgotten.
 */
export const SECRET_USE_WRITE_INTERVAL_MS = 60_000;
const MAX_REMEMBERED = 10_000;

const holder = globalThis as typeof globalThis & {
  __clientSecretUses?: { written: Map<string, number>; pending: Set<Promise<void>> };
};
function uses() {
  holder.__clientSecretUses ??= { written: new Map(), pending: new Set() };
  return holder.__clientSecretUses;
}

/** Records that the secret with this hash authenticated `appId` at `now` (throttled, in the background). */
export function noteClientSecretUse(appId: string, secretHash: string | null, now: Date): void {
  if (secretHash === null) return;
  const { written, pending } = uses();
  const at = now.getTime();
  const last = written.get(secretHash);
  if (last !== undefined && at - last < SECRET_USE_WRITE_INTERVAL_MS) return;
  written.delete(secretHash);
  written.set(secretHash, at);
  // Oldest first (insertion order): a process that saw many apps forgets the quietest.
  if (written.size > MAX_REMEMBERED) written.delete(written.keys().next().value as string);
  const upsert = db().$executeRaw`
    INSERT INTO "ClientSecretUse" ("secretHash", "appId", "lastUsedAt")
    VALUES (${secretHash}, ${appId}, ${now.toISOString()}::timestamp(3))
    ON CONFLICT ("secretHash") DO UPDATE
    SET "lastUsedAt" = GREATEST("ClientSecretUse"."lastUsedAt", EXCLUDED."lastUsedAt")`;
  const write: Promise<void> = upsert
    .then(
      () => undefined,
      (error: unknown) => {
        // The next use tries again rather than a minute later.
        if (written.get(secretHash) === at) written.delete(secretHash);
        log.warn("could not record when a client secret was last used", { appId, error: describeError(error) });
      },
    )
    .finally(() => pending.delete(write));
  pending.add(write);
}

/** Waits for the last-used writes in flight (tests; a graceful shutdown may too). */
export async function settleClientSecretUses(): Promise<void> {
  const { pending } = uses();
  while (pending.size > 0) await Promise.all([...pending]);
}

/** Forgets which secrets this process recorded lately, so the next use of each is written (tests). */
export function forgetClientSecretUses(): void {
  uses().written.clear();
}
