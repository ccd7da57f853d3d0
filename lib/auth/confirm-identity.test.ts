import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { confirmIdentity, confirmMethodOf } from "./confirm-identity";
import { startSession } from "./sessions";
import { throttlePolicy } from "./throttle";
import { beginTotpSetup, confirmTotpSetup } from "./two-factor/authenticator-app";
import { totpCodeAt } from "./two-factor/totp";

const long = new Date(Date.now() - 30 * 60_000);
const authenticatedAt = async (sid: string) =>
  (await db().userSession.findUniqueOrThrow({ where: { id: sid } })).authenticatedAt;

async function staleSession() {
  const { owner } = await makeAgency({ locations: 0 });
  const { sid } = await startSession({ id: owner.id, sessionVersion: 0 }, { userAgent: "", address: "x" }, long);
  return { owner, sid };
}

/** How a confirmation ended: "confirmed", or the refused field and its message. */
const confirmOutcome = (attempt: Promise<unknown>) =>
  attempt.then(
    () => "confirmed",
    (error: { field?: string; message: string }) => `${error.field}: ${error.message}`,
  );

describe("Confirm it's you", () => {
  it("asks a person without two-factor for their password, and renews the session's authentication", async () => {
    const { owner, sid } = await staleSession();
    expect(await confirmMethodOf(owner.id)).toEqual({ method: "password", passkey: false });
    expect(await confirmOutcome(confirmIdentity(owner, sid, { password: "wrong" }, "203.0.113.50"))).toMatch(
      /^password: /,
    );
    expect(await authenticatedAt(sid)).toEqual(long);
    expect(await confirmOutcome(confirmIdentity(owner, sid, { password: testPassword }, "203.0.113.50"))).toBe(
      "confirmed",
    );
    expect((await authenticatedAt(sid)).getTime()).toBeGreaterThan(Date.now() - 5000);
  });

  it("asks a person with two-factor for a code: the password alone does not confirm", async () => {
    const { owner, sid } = await staleSession();
    const { secret } = await beginTotpSetup(owner);
    const before = new Date(Date.now() - 60_000);
    await confirmTotpSetup(owner.id, totpCodeAt(secret, before), before);
    expect(await confirmMethodOf(owner.id)).toEqual({ method: "code", passkey: false });
    expect(await confirmOutcome(confirmIdentity(owner, sid, { password: testPassword }, "203.0.113.51"))).toMatch(
      /^code: /,
    );
    // One code, read once: read again, a step that ended between the two would give a new code.
    const code = totpCodeAt(secret, new Date());
    expect(await confirmOutcome(confirmIdentity(owner, sid, { code }, "203.0.113.51"))).toBe("confirmed");
    // Each code once: the same code again is refused.
    expect(await confirmOutcome(confirmIdentity(owner, sid, { code }, "203.0.113.51"))).toMatch(/^code: /);
  });

  it("throttles wrong answers from an address like sign-ins", async () => {
    const { owner, sid } = await staleSession();
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures; i++) {
      await confirmOutcome(confirmIdentity(owner, sid, { password: "wrong" }, "203.0.113.52"));
    }
    expect(await confirmOutcome(confirmIdentity(owner, sid, { password: testPassword }, "203.0.113.52"))).toMatch(
      /Too many wrong answers/,
    );
    expect(await authenticatedAt(sid)).toEqual(long);
  });
});
