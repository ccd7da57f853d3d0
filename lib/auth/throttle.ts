import { addressBucket } from "@/lib/client-address";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * Failed sign-ins are counted per (account, client address) and per client address in the
 * database, so every instance sees the same counts. Past its limit a key is blocked for a while.
 * There is no key for an account alone: failures from other addresses (an attacker's) never lock
 * the owner out; they slow only the addresses that failed, and spraying many accounts from one
 * address is limited by that address's own key. A success clears its (account, address) count.
 *
 * An attempt is counted before its password is compared, in one statement per key, so a parallel
 * burst cannot get more than `maxFailures` guesses past the check (the comparison is slow: scrypt).
 */
export const throttlePolicy = {
  accountAtAddress: { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  address: { maxFailures: 30, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
} as const;

type KeyKind = keyof typeof throttlePolicy;

// An IPv6 client counts by its /64 (addressBucket), else it would get new tries from every address of it.
const accountAtAddressKey = (email: string, address: string) =>
  `account-at-address:${addressBucket(address)} ${email.trim().toLowerCase()}`;
const addressKey = (address: string) => `address:${addressBucket(address)}`;

export const throttleKeys = (email: string, address: string) =>
  [
    { kind: "accountAtAddress" as const, key: accountAtAddressKey(email, address) },
    { kind: "address" as const, key: addressKey(address) },
  ] satisfies { kind: KeyKind; key: string }[];

/** Rows expired this long ago are pruned (any row past its window and block says nothing). */
const longestWindowMs = Math.max(...Object.values(throttlePolicy).map((p) => Math.max(p.windowMs, p.blockMs)));
const pruneBatch = 100;

// Dates go to SQL as ISO text cast to timestamp(3): the columns hold UTC without a zone, as Prisma writes them.
const at = (date: Date) => date.toISOString();

/**
 * Counts one attempt on a key and returns the count in the current window. The window starts
 * afresh only once it is over and no block is running; the attempt that reaches the limit starts
 * the block.
 */
async function countAttempt(kind: KeyKind, key: string, now: Date): Promise<number> {
  const policy = throttlePolicy[kind];
  const windowOpenedAfter = at(new Date(now.getTime() - policy.windowMs));
  const until = at(new Date(now.getTime() + policy.blockMs));
  // Evaluated on the row as it was before this attempt (ON CONFLICT's SET sees the old values).
  const fresh = Prisma.sql`("SignInThrottle"."windowStartedAt" < ${windowOpenedAfter}::timestamp(3)
    AND ("SignInThrottle"."blockedUntil" IS NULL OR "SignInThrottle"."blockedUntil" <= ${at(now)}::timestamp(3)))`;
  const failures = Prisma.sql`(CASE WHEN ${fresh} THEN 1 ELSE "SignInThrottle"."failures" + 1 END)`;
  const rows = await db().$queryRaw<{ failures: number }[]>`
    INSERT INTO "SignInThrottle" ("key", "failures", "windowStartedAt", "blockedUntil")
    VALUES (${key}, 1, ${at(now)}::timestamp(3), ${policy.maxFailures <= 1 ? until : null}::timestamp(3))
    ON CONFLICT ("key") DO UPDATE SET
      "failures" = ${failures},
      "windowStartedAt" = CASE WHEN ${fresh} THEN ${at(now)}::timestamp(3) ELSE "SignInThrottle"."windowStartedAt" END,
      "blockedUntil" = CASE WHEN ${failures} = ${policy.maxFailures} THEN ${until}::timestamp(3)
        ELSE "SignInThrottle"."blockedUntil" END
    RETURNING "failures"`;
  return rows[0]?.failures ?? 1;
}

export type SignInResult<T> = { ok: true; actor: T } | { ok: false; reason: "invalid" | "throttled" };

/**
 * One sign-in attempt: counted against the (account, address) pair and the address first, then,
 * when neither is over its limit, `check` compares the password. A success clears the pair's count
 * and takes the attempt back from the address's, so people signing in from one office are not
 * blocked for succeeding.
 */
export async function throttledSignIn<T>(
  email: string,
  address: string,
  check: () => Promise<T | null>,
  now = new Date(),
): Promise<SignInResult<T>> {
  const keys = throttleKeys(email, address);
  const counts = await Promise.all(keys.map(({ kind, key }) => countAttempt(kind, key, now)));
  const over = (atLeast: (kind: KeyKind) => number) => keys.some(({ kind }, i) => (counts[i] ?? 0) >= atLeast(kind));
  try {
    if (over((kind) => throttlePolicy[kind].maxFailures + 1)) return { ok: false, reason: "throttled" };
    const actor = await check();
    if (actor) {
      await forgiveAttempt(email, address);
      return { ok: true, actor };
    }
    // The attempt that reached the limit was compared; it answers "throttled" so the person knows to wait.
    return { ok: false, reason: over((kind) => throttlePolicy[kind].maxFailures) ? "throttled" : "invalid" };
  } finally {
    await pruneSignInThrottle(now);
  }
}

async function forgiveAttempt(email: string, address: string): Promise<void> {
  await db().signInThrottle.deleteMany({ where: { key: accountAtAddressKey(email, address) } });
  await db().$executeRaw`
    UPDATE "SignInThrottle" SET
      "failures" = GREATEST("failures" - 1, 0),
      "blockedUntil" = CASE WHEN "failures" - 1 < ${throttlePolicy.address.maxFailures} THEN NULL ELSE "blockedUntil" END
    WHERE "key" = ${addressKey(address)}`;
}

/**
 * Deletes up to `batch` rows whose window and block are both over (such a row counts the same as
 * none). Run after each attempt, so the table stays the size of the last quarter hour's failures.
 * The conditions are repeated outside the sub-select so a row counted again meanwhile is kept.
 */
export async function pruneSignInThrottle(now = new Date(), batch = pruneBatch): Promise<number> {
  const expired = at(new Date(now.getTime() - longestWindowMs));
  return db().$executeRaw`
    DELETE FROM "SignInThrottle"
    WHERE "windowStartedAt" < ${expired}::timestamp(3)
      AND ("blockedUntil" IS NULL OR "blockedUntil" <= ${at(now)}::timestamp(3))
      AND "key" IN (
        SELECT "key" FROM "SignInThrottle"
        WHERE "windowStartedAt" < ${expired}::timestamp(3)
          AND ("blockedUntil" IS NULL OR "blockedUntil" <= ${at(now)}::timestamp(3))
        LIMIT ${batch})`;
}
