import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { peerAddressHeader } from "@/lib/client-address";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { signInOutcome } from "@/lib/testing/refusal";
import { authOptions } from "./options";
import { throttlePolicy } from "./throttle";

/** Counts the passwords actually compared (each one is a guess the attacker got). */
const compared = vi.hoisted(() => ({ count: 0 }));
// next-auth's handler runs in a request, where next/headers has cookies; here a store of our own.
vi.mock("next/headers", () => {
  const store = new Map<string, string>();
  return {
    cookies: async () => ({
      get: (name: string) => (store.has(name) ? { name, value: store.get(name) } : undefined),
      set: (name: string, value: string) => store.set(name, value),
      delete: (name: string) => store.delete(name),
    }),
  };
});
vi.mock("@/lib/accounts/users", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/accounts/users")>();
  return {
    ...original,
    checkCredentials: (email: string, password: string) => {
      compared.count++;
      return original.checkCredentials(email, password);
    },
  };
});

/** next-auth's authorize callback, as the sign-in route calls it, with the request headers it passes. */
function authorizeCredentials(email: string, password: string, headers: Record<string, string>) {
  const provider = authOptions().providers[0] as unknown as {
    options: {
      authorize(credentials: Record<string, string>, request: { headers: Record<string, string> }): Promise<unknown>;
    };
  };
  return provider.options.authorize({ email, password }, { headers });
}

/** A client that rotates a forged X-Forwarded-For on every request, from one real peer. */
const forged = (peer: string) => ({
  [peerAddressHeader]: peer,
  "x-forwarded-for": `198.51.100.${randomBytes(1)[0]}, 203.0.113.${randomBytes(1)[0]}`,
});

describe("sign-in throttle through the authorize callback", () => {
  it("counts a parallel burst atomically: five guesses are compared, the rest refused", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const peer = `10.1.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    compared.count = 0;
    const burst = await Promise.all(
      Array.from({ length: 20 }, () =>
        signInOutcome(authorizeCredentials(owner.email, "wrong password", forged(peer))),
      ),
    );
    expect(compared.count).toBe(throttlePolicy.accountAtAddress.maxFailures);
    // The fifth failure answers "throttled" itself.
    expect(burst.filter((o) => o === "invalid")).toHaveLength(throttlePolicy.accountAtAddress.maxFailures - 1);
    expect(burst.filter((o) => o === "throttled")).toHaveLength(20 - (throttlePolicy.accountAtAddress.maxFailures - 1));
    // Blocked: even the right password is refused now, without being compared.
    expect(await signInOutcome(authorizeCredentials(owner.email, testPassword, forged(peer)))).toBe("throttled");
    expect(compared.count).toBe(throttlePolicy.accountAtAddress.maxFailures);
  });

  it("keys the address on the connection's peer, not on a forged X-Forwarded-For", async () => {
    const peer = `10.2.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const { owner } = await makeAgency({ locations: 0 });
    // Password spraying: one guess per account, many accounts, a new forged address each time.
    for (let i = 0; i < throttlePolicy.address.maxFailures; i++) {
      await signInOutcome(
        authorizeCredentials(`sprayed-${i}-${randomBytes(4).toString("hex")}@example.test`, "guess", forged(peer)),
      );
    }
    expect(await signInOutcome(authorizeCredentials(owner.email, testPassword, forged(peer)))).toBe("throttled");
    // Another peer is not affected.
    expect(await signInOutcome(authorizeCredentials(owner.email, testPassword, forged("10.3.0.1")))).toBe("signed in");
  });

  it("five failures for the owner from five forged addresses, then the owner signs in from theirs", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const attacker = `10.5.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures; i++) {
      await signInOutcome(authorizeCredentials(owner.email, `guess-${i}`, forged(attacker)));
    }
    // The forged X-Forwarded-For was not believed: the attacker's one address is the one slowed.
    expect(await signInOutcome(authorizeCredentials(owner.email, testPassword, forged(attacker)))).toBe("throttled");
    expect(
      await signInOutcome(authorizeCredentials(owner.email, testPassword, { [peerAddressHeader]: "10.6.0.1" })),
    ).toBe("signed in");
  });

  it("a success does not count against the address", async () => {
    const peer = `10.4.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const { owner } = await makeAgency({ locations: 0 });
    for (let i = 0; i < throttlePolicy.address.maxFailures + 5; i++) {
      expect(await signInOutcome(authorizeCredentials(owner.email, testPassword, forged(peer)))).toBe("signed in");
    }
  });
});
