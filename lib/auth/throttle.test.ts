import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { later } from "@/lib/testing/clock";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import { pruneSignInThrottle, throttledSignIn, throttleKeys, throttlePolicy } from "./throttle";

// In the future: every attempt prunes expired rows, and other test files sign in at the real time.
const t0 = new Date("2099-01-01T00:00:00Z");

const wrong = async () => null;
const right = async () => "actor";
const throttledAttempt = (email: string, address: string, now: Date, check: () => Promise<string | null> = wrong) =>
  throttledSignIn(email, address, check, now).then((r) => (r.ok ? "signed in" : r.reason));

describe("failed sign-in throttle", () => {
  it("blocks an account at one address after the limit, for the block time", async () => {
    const email = `victim-${uniqueSuffix()}@example.test`;
    const { maxFailures, blockMs } = throttlePolicy.accountAtAddress;
    for (let i = 0; i < maxFailures - 1; i++) expect(await throttledAttempt(email, "10.0.0.1", t0)).toBe("invalid");
    // The attempt that reaches the limit is compared, and says to wait.
    expect(await throttledAttempt(email, "10.0.0.1", t0)).toBe("throttled");
    expect(await throttledAttempt(email, "10.0.0.1", later(t0, blockMs - 1), right)).toBe("throttled");
    expect(await throttledAttempt(email, "10.0.0.1", later(t0, blockMs + 1), right)).toBe("signed in");
  });

  it("never locks the owner out: five failures from five other addresses, then the owner signs in from theirs", async () => {
    const email = `owner-${uniqueSuffix()}@example.test`;
    const { maxFailures } = throttlePolicy.accountAtAddress;
    for (let i = 0; i < maxFailures; i++) expect(await throttledAttempt(email, `203.0.113.${i}`, t0)).toBe("invalid");
    expect(await throttledAttempt(email, "198.51.100.7", later(t0, 1), right)).toBe("signed in");
    // The failing addresses are slowed, not the account: one of them keeps failing and is blocked alone.
    for (let i = 1; i < maxFailures; i++) await throttledAttempt(email, "203.0.113.0", later(t0, 2));
    expect(await throttledAttempt(email, "203.0.113.0", later(t0, 3), right)).toBe("throttled");
    expect(await throttledAttempt(email, "198.51.100.7", later(t0, 3), right)).toBe("signed in");
  });

  it("keeps the block running past the window even while more attempts come in", async () => {
    const email = `persistent-${uniqueSuffix()}@example.test`;
    const { maxFailures, windowMs, blockMs } = throttlePolicy.accountAtAddress;
    for (let i = 0; i < maxFailures - 1; i++) await throttledAttempt(email, "a", t0);
    const blockStart = later(t0, windowMs - 1); // the fifth failure, just inside the window
    await throttledAttempt(email, "a", blockStart);
    expect(await throttledAttempt(email, "a", later(t0, windowMs + 1), right)).toBe("throttled");
    expect(await throttledAttempt(email, "a", later(blockStart, blockMs - 1), right)).toBe("throttled");
    expect(await throttledAttempt(email, "a", later(blockStart, blockMs + 1), right)).toBe("signed in");
  });

  it("blocks an address that tries many accounts", async () => {
    const address = `addr-${uniqueSuffix()}`;
    for (let i = 0; i < throttlePolicy.address.maxFailures; i++)
      await throttledAttempt(`u${i}-${address}@x.test`, address, t0);
    expect(await throttledAttempt("someone-else@x.test", address, t0, right)).toBe("throttled");
    expect(await throttledAttempt("someone-else@x.test", "another address", t0, right)).toBe("signed in");
  });

  it("counts an IPv6 address by its /64: new addresses in one /64 get no new tries", async () => {
    const email = `rotating-${uniqueSuffix()}@example.test`;
    // A /64 of this run's own (the table outlives the test), and the next /64 up.
    const x = randomBytes(2).readUInt16BE(0).toString(16);
    const y = randomBytes(2).readUInt16BE(0) & 0xfffe;
    const mine = `2001:db8:${x}:${y.toString(16)}`;
    const next = `2001:db8:${x}:${(y + 1).toString(16)}`;
    const { maxFailures } = throttlePolicy.accountAtAddress;
    for (let i = 1; i < maxFailures; i++)
      expect(await throttledAttempt(email, `${mine}::${i.toString(16)}`, t0)).toBe("invalid");
    expect(await throttledAttempt(email, `${mine}:ffff:ffff:ffff:ffff`, t0)).toBe("throttled");
    // Another address of that /64, in another spelling, is blocked too; the next /64 is another client.
    expect(await throttledAttempt(email, `${mine.toUpperCase()}:0:0:0:abcd`, later(t0, 1), right)).toBe("throttled");
    expect(await throttledAttempt(email, `${next}::1`, later(t0, 1), right)).toBe("signed in");
  });

  it("forgets failures outside the window and after a success", async () => {
    const email = `forgetful-${uniqueSuffix()}@example.test`;
    const { maxFailures, windowMs } = throttlePolicy.accountAtAddress;
    for (let i = 0; i < maxFailures - 1; i++) await throttledAttempt(email, "a", t0);
    expect(await throttledAttempt(email, "a", later(t0, windowMs + 1))).toBe("invalid");
    expect(await throttledAttempt(email, "a", later(t0, windowMs + 2), right)).toBe("signed in");
    for (let i = 0; i < maxFailures - 1; i++)
      expect(await throttledAttempt(email, "a", later(t0, windowMs + 3))).toBe("invalid");
  });

  it("does not compare the password of a blocked account at that address", async () => {
    const email = `blocked-${uniqueSuffix()}@example.test`;
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures; i++) await throttledAttempt(email, "a", t0);
    let compared = 0;
    const counting = async () => {
      compared++;
      return "actor";
    };
    expect(await throttledAttempt(email, "a", later(t0, 1), counting)).toBe("throttled");
    expect(compared).toBe(0);
    expect(await throttledAttempt(email, "b", later(t0, 1), counting)).toBe("signed in");
    expect(compared).toBe(1);
  });

  it("lets a parallel burst compare no more than the limit", async () => {
    const email = `burst-${uniqueSuffix()}@example.test`;
    const address = `burst-${uniqueSuffix()}`;
    let compared = 0;
    const slowWrong = async () => {
      compared++;
      await new Promise((r) => setTimeout(r, 20)); // stands in for scrypt
      return null;
    };
    const results = await Promise.all(
      Array.from({ length: 25 }, () => throttledAttempt(email, address, t0, slowWrong)),
    );
    expect(compared).toBe(throttlePolicy.accountAtAddress.maxFailures);
    expect(results.filter((r) => r === "invalid")).toHaveLength(throttlePolicy.accountAtAddress.maxFailures - 1);
  });
});

describe("pruneSignInThrottle", () => {
  // Before the other tests' rows (which run first) and after the real time.
  const old = new Date("2098-06-01T00:00:00Z");

  it("deletes rows whose window and block are over, in batches, and keeps the rest", async () => {
    const spent = Array.from({ length: 3 }, () => `spent-${uniqueSuffix()}@example.test`);
    const address = `prune-${uniqueSuffix()}`;
    for (const email of spent) await throttledAttempt(email, address, old);
    const blocked = `blocked-${uniqueSuffix()}@example.test`;
    // Its window opened at `old`; its block began with its fifth failure, ten minutes later.
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures; i++)
      await throttledAttempt(blocked, address, i === 0 ? old : later(old, 10 * 60_000));
    const key = (email: string) => throttleKeys(email, address)[0]?.key ?? "";
    const rows = async () =>
      (await db().signInThrottle.findMany({ where: { key: { in: [...spent, blocked].map(key) } } })).length;
    expect(await rows()).toBe(4);

    // Still inside the window: nothing goes.
    const inside = later(old, throttlePolicy.accountAtAddress.windowMs - 1);
    expect(await db().signInThrottle.count({ where: { key: { in: spent.map(key) } } })).toBe(3);
    await pruneSignInThrottle(inside);
    expect(await rows()).toBe(4);

    // Past the window, one batch at a time; the blocked account stays while its block runs.
    const past = later(old, throttlePolicy.accountAtAddress.windowMs + 1);
    const firstBatch = await pruneSignInThrottle(past, 2);
    expect(firstBatch).toBe(2);
    while ((await pruneSignInThrottle(past, 2)) > 0) {}
    const left = await db().signInThrottle.findMany({ where: { key: { in: [...spent, blocked].map(key) } } });
    expect(left.map((r) => r.key)).toEqual([key(blocked)]);
  });
});
