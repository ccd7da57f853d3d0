import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { freshAddress } from "@/lib/testing/api-client";
import { browserHeaders, memoryCookieJar } from "@/lib/testing/cookie-jar";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { signInOutcome } from "@/lib/testing/refusal";
import { personWithTotp } from "@/lib/testing/two-factor";
import {
  browserCookie,
  noteBrowser,
  passwordStep,
  secondFactorStep,
  secondStepCookie,
  secondStepLifetimeMs,
} from "./sign-in";
import { throttlePolicy } from "./throttle";
import { totpCodeAt } from "./two-factor/totp";

describe("the second step at sign-in", () => {
  it("signs a person without two-factor in with the password alone", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const jar = memoryCookieJar();
    const user = await passwordStep(
      { email: owner.email, password: testPassword },
      browserHeaders(freshAddress()),
      jar,
    );
    expect(user).toMatchObject({ id: owner.id, userAgent: "Mozilla/5.0 Firefox/140.0" });
    expect(jar.get(secondStepCookie)).toBeUndefined();
  });

  it("asks a person with two-factor for a code before any session, and takes a right one in that browser", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    expect(
      await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address), jar)),
    ).toBe("second-factor");
    expect(jar.get(secondStepCookie)).toEqual(expect.any(String));
    expect(await db().userSession.count({ where: { userId: owner.id } })).toBe(0);
    const user = await secondFactorStep({ code: totpCodeAt(secret, new Date()) }, browserHeaders(address), jar);
    expect(user).toMatchObject({ id: owner.id });
    // The step is used up: the same cookie cannot sign in again.
    expect(jar.get(secondStepCookie)).toBeUndefined();
    expect(await db().signInChallenge.count({ where: { userId: owner.id } })).toBe(0);
  });

  it("belongs to the browser that began it: the step cookie copied to another browser is refused", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address), jar));
    const other = memoryCookieJar({ [secondStepCookie]: jar.get(secondStepCookie) ?? "" });
    expect(
      await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, browserHeaders(address), other)),
    ).toBe("step-expired");
    const forgedBrowser = memoryCookieJar({ ...jar.all(), [browserCookie]: "A".repeat(32) });
    expect(
      await signInOutcome(
        secondFactorStep({ code: totpCodeAt(secret, new Date()) }, browserHeaders(address), forgedBrowser),
      ),
    ).toBe("step-expired");
  });

  it("expires after 5 minutes", async () => {
    const { owner, secret } = await personWithTotp();
    const address = freshAddress();
    const jar = memoryCookieJar();
    const t = new Date();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address), jar, t));
    const late = new Date(t.getTime() + secondStepLifetimeMs);
    expect(
      await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, late) }, browserHeaders(address), jar, late)),
    ).toBe("step-expired");
  });

  it("throttles wrong codes by address, never locking the person out from their own", async () => {
    const { owner, secret } = await personWithTotp();
    const attacker = freshAddress();
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(attacker), jar));
    const outcomes: string[] = [];
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures + 2; i++) {
      outcomes.push(await signInOutcome(secondFactorStep({ code: "000000" }, browserHeaders(attacker), jar)));
    }
    expect(outcomes.slice(0, throttlePolicy.accountAtAddress.maxFailures - 1)).toEqual(
      Array(throttlePolicy.accountAtAddress.maxFailures - 1).fill("wrong-code"),
    );
    expect(outcomes.at(-1)).toBe("throttled");
    // Even the right code is refused from that address now.
    expect(
      await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, browserHeaders(attacker), jar)),
    ).toBe("throttled");
    // The person, from their own address and browser, signs in.
    const own = freshAddress();
    const mine = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(own), mine));
    expect(
      await signInOutcome(secondFactorStep({ code: totpCodeAt(secret, new Date()) }, browserHeaders(own), mine)),
    ).toBe("signed in");
  });

  it("takes a recovery code once, and notifies the person in the app and the audit log", async () => {
    const { owner, recoveryCodes } = await personWithTotp();
    const address = freshAddress();
    const code = recoveryCodes[0] ?? "";
    const jar = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address), jar));
    expect(await signInOutcome(secondFactorStep({ code }, browserHeaders(address), jar))).toBe("signed in");
    const again = memoryCookieJar();
    await signInOutcome(passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address), again));
    expect(await signInOutcome(secondFactorStep({ code }, browserHeaders(address), again))).toBe("wrong-code");
    expect(await db().notification.count({ where: { userId: owner.id, kind: "recovery_code_used" } })).toBe(1);
    const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: owner.id, action: "recovery_code_used" } });
    expect(audit.details).toMatchObject({ address, left: 9 });
    expect(JSON.stringify(audit.details)).not.toContain(code);
  });

  it("without a second step in progress, a code signs no one in", async () => {
    expect(
      await signInOutcome(secondFactorStep({ code: "123456" }, browserHeaders(freshAddress()), memoryCookieJar())),
    ).toBe("step-expired");
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
