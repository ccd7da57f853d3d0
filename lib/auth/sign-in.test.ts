import { describe, expect, it } from "vitest";
import { peerAddressHeader } from "@/lib/client-address";
import { db } from "@/lib/db/client";
import { memoryCookieJar } from "@/lib/testing/cookie-jar";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { signInOutcome } from "@/lib/testing/refusal";
import {
  browserCookie,
  noteBrowser,
  passwordStep,
  secondFactorStep,
  secondStepCookie,
  secondStepLifetimeMs,
} from "./sign-in";
import { throttlePolicy } from "./throttle";
import { beginTotpSetup, confirmTotpSetup } from "./two-factor/authenticator-app";
import { totpCodeAt } from "./two-factor/totp";

const from = (address: string) => ({ [peerAddressHeader]: address, "user-agent": "Mozilla/5.0 Firefox/140.0" });
let lastAddress = 0;
const freshAddress = () => {
  lastAddress = (lastAddress % 250) + 1;
  return `198.51.100.${lastAddress}`;
};

async function personWithTotp() {
  const { owner } = await makeAgency({ locations: 0 });
  const { secret } = await beginTotpSetup(owner);
  // Set up a minute ago, so the code of now is a later step than the set-up's.
  const before = new Date(Date.now() - 60_000);
  const { recoveryCodes = [] } = await confirmTotpSetup(owner.id, totpCodeAt(secret, before), before);
  return { owner, secret, recoveryCodes };
}

describe("the second step at sign-in", () => {
  it("signs a person without two-factor in with the password alone", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const jar = memoryCookieJar();
    const user = await passwordStep({ email: owner.email, password: testPassword }, from(freshAddress()), jar);
    expect(user).toMatchObject({ id: owner.id, userAgent: "Mozilla/5.0 Firefox/140.0" });
    expect(jar.get(secondStepCookie)).toBeUndefined();
  });

  it("asks a person with two-factor for a code before any session, and takes a right one in that browser", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    expect(await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(address), jar))).toBe(
      "second-factor",
    );
    expect(jar.get(secondStepCookie)).toEqual(expect.any(String));
    expect(await db().userSession.count({ where: { userId: owner.id } })).toBe(0);
    const user = await secondFactorStep({ code: totpCodeAt(secret, new Date()) }, from(address), jar);
    expect(user).toMatchObject({ id: owner.id });
    // The step is used up: the same cookie cannot sign in again.
    expect(jar.get(secondStepCookie)).toBeUndefined();
    expect(await db().signInChallenge.count({ where: { userId: owner.id } })).toBe(0);
  });

  it("belongs to the browser that began it: the step cookie copied to another browser is refused", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(address), jar));
    const other = memoryCookieJar({ [secondStepCookie]: jar.get(secondStepCookie) ?? "" });
    expect(await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, from(address), other))).toBe(
      "step-expired",
    );
    const forgedBrowser = memoryCookieJar({ ...jar.all(), [browserCookie]: "A".repeat(32) });
    expect(
      await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, from(address), forgedBrowser)),
    ).toBe("step-expired");
  });

  it("expires after 5 minutes", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    const t = new Date();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(address), jar, t));
    const late = new Date(t.getTime() + secondStepLifetimeMs);
    expect(await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, late) }, from(address), jar, late))).toBe(
      "step-expired",
    );
  });

  it("throttles wrong codes by address, never locking the person out from their own", async () => {
    const { owner, secret } = await personWithTotp();
    const attacker = freshAddress();
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(attacker), jar));
    const outcomes: string[] = [];
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures + 2; i++) {
      outcomes.push(await signInOutcome(secondFactorStep({ code: "000000" }, from(attacker), jar)));
    }
    expect(outcomes.slice(0, throttlePolicy.accountAtAddress.maxFailures - 1)).toEqual(
      Array(throttlePolicy.accountAtAddress.maxFailures - 1).fill("wrong-code"),
    );
    expect(outcomes.at(-1)).toBe("throttled");
    // Even the right code is refused from that address now.
    expect(await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, from(attacker), jar))).toBe(
      "throttled",
    );
    // The person, from their own address and browser, signs in.
    const own = freshAddress();
    const mine = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(own), mine));
    expect(await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, from(own), mine))).toBe(
      "signed in",
    );
  });

  it("takes a recovery code once, and notifies the person in the app and the audit log", async () => {
    const { owner, recoveryCodes } = await personWithTotp();
    const address = freshAddress();
    const code = recoveryCodes[0] ?? "";
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(address), jar));
    expect(await signInOutcome(secondFactorStep({ code }, from(address), jar))).toBe("signed in");
    const again = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, from(address), again));
    expect(await signInOutcome(secondFactorStep({ code }, from(address), again))).toBe("wrong-code");
    expect(await db().notification.count({ where: { userId: owner.id, kind: "recovery_code_used" } })).toBe(1);
    const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: owner.id, action: "recovery_code_used" } });
    expect(audit.details).toMatchObject({ address, left: 9 });
    expect(JSON.stringify(audit.details)).not.toContain(code);
  });

  it("without a second step in progress, a code signs no one in", async () => {
    expect(await signInOutcome(secondFactorStep({ code: "123456" }, from(freshAddress()), memoryCookieJar()))).toBe(
      "step-expired",
    );
  });
});

describe("sign-ins from new browsers", () => {
  it("are audited, except the person's very first", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const base = {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      sessionVersion: 0,
      userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Version/18.0 Safari/605.1.15",
      address: "203.0.113.9",
    };
    const count = () => db().auditLog.count({ where: { targetId: owner.id, action: "sign_in_new_browser" } });
    await noteBrowser({ ...base, browserHash: "first" });
    await noteBrowser({ ...base, browserHash: "first" });
    expect(await count()).toBe(0);
    await noteBrowser({ ...base, browserHash: "second" });
    expect(await count()).toBe(1);
    const entry = await db().auditLog.findFirstOrThrow({
      where: { targetId: owner.id, action: "sign_in_new_browser" },
    });
    expect(entry.details).toMatchObject({ browser: "Safari 18", system: "macOS", address: "203.0.113.9" });
  });
});
