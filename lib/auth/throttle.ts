import { db } from "@/lib/db/client";

/**
 * Failed sign-ins are counted per account and per client address in the database, so every
 * instance sees the same counts. Past the limit the key is blocked for a while; a success clears
 * the account's counter.
 */
export const throttlePolicy = {
  account: { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  address: { maxFailures: 30, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
} as const;

type KeyKind = keyof typeof throttlePolicy;

export const throttleKeys = (email: string, address: string) =>
  [
    { kind: "account" as const, key: `account:${email.trim().toLowerCase()}` },
    { kind: "address" as const, key: `address:${address}` },
  ] satisfies { kind: KeyKind; key: string }[];

/** When the sign-in may be tried again, or null when it is not blocked. */
export async function blockedUntil(email: string, address: string, now = new Date()): Promise<Date | null> {
  const rows = await db().signInThrottle.findMany({
    where: { key: { in: throttleKeys(email, address).map((k) => k.key) }, blockedUntil: { gt: now } },
  });
  const latest = rows.map((r) => r.blockedUntil?.getTime() ?? 0).sort((a, b) => b - a)[0];
  return latest ? new Date(latest) : null;
}

export async function recordFailedSignIn(email: string, address: string, now = new Date()): Promise<void> {
  for (const { kind, key } of throttleKeys(email, address)) {
    const policy = throttlePolicy[kind];
    await db().$transaction(async (tx) => {
      const row = await tx.signInThrottle.findUnique({ where: { key } });
      const fresh = !row || now.getTime() - row.windowStartedAt.getTime() > policy.windowMs;
      const failures = fresh ? 1 : row.failures + 1;
      const data = {
        failures,
        windowStartedAt: fresh ? now : row.windowStartedAt,
        blockedUntil:
          failures >= policy.maxFailures ? new Date(now.getTime() + policy.blockMs) : (row?.blockedUntil ?? null),
      };
      await tx.signInThrottle.upsert({ where: { key }, create: { key, ...data }, update: data });
    });
  }
}

export async function clearAccountThrottle(email: string): Promise<void> {
  await db().signInThrottle.deleteMany({ where: { key: `account:${email.trim().toLowerCase()}` } });
}
