import { describe, expect, it } from "vitest";
import { blockedUntil, clearAccountThrottle, recordFailedSignIn, throttlePolicy } from "./throttle";

const t0 = new Date("2026-01-01T00:00:00Z");
const later = (ms: number) => new Date(t0.getTime() + ms);

describe("failed sign-in throttle", () => {
  it("blocks an account after the limit, for the block time, whatever the address", async () => {
    const email = `victim-${Math.random()}@example.test`;
    for (let i = 0; i < throttlePolicy.account.maxFailures - 1; i++) await recordFailedSignIn(email, `10.0.0.${i}`, t0);
    expect(await blockedUntil(email, "10.9.9.9", t0)).toBeNull();
    await recordFailedSignIn(email, "10.0.0.99", t0);
    expect(await blockedUntil(email, "10.9.9.9", t0)).toEqual(later(throttlePolicy.account.blockMs));
    expect(await blockedUntil(email, "10.9.9.9", later(throttlePolicy.account.blockMs + 1))).toBeNull();
  });

  it("blocks an address that tries many accounts", async () => {
    const address = `addr-${Math.random()}`;
    for (let i = 0; i < throttlePolicy.address.maxFailures; i++)
      await recordFailedSignIn(`u${i}-${address}@x.test`, address, t0);
    expect(await blockedUntil("someone-else@x.test", address, t0)).not.toBeNull();
  });

  it("forgets failures outside the window and after a success", async () => {
    const email = `forgetful-${Math.random()}@example.test`;
    for (let i = 0; i < throttlePolicy.account.maxFailures - 1; i++) await recordFailedSignIn(email, "a", t0);
    await recordFailedSignIn(email, "b", later(throttlePolicy.account.windowMs + 1));
    expect(await blockedUntil(email, "c", later(throttlePolicy.account.windowMs + 1))).toBeNull();
    await clearAccountThrottle(email);
    for (let i = 0; i < throttlePolicy.account.maxFailures - 1; i++) await recordFailedSignIn(email, "d", t0);
    expect(await blockedUntil(email, "e", t0)).toBeNull();
  });
});
