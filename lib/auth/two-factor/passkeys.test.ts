// Over 250 lines on purpose: every passkey ceremony (add, sign in, second step, confirm) answered by
// one software authenticator, whose set-up the cases share.
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { freshAddress } from "@/lib/testing/api-client";
import { browserHeaders, memoryCookieJar } from "@/lib/testing/cookie-jar";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { signInOutcome } from "@/lib/testing/refusal";
import { softAuthenticator } from "@/lib/testing/webauthn";
import { beginPasskeyConfirmation, confirmIdentityWithPasskey } from "../confirm-identity";
import { passkeySignInOptions, passkeyStep } from "../passkey-sign-in";
import { startSession } from "../sessions";
import { browserHashOf, type CookieJar, passwordStep, secondFactorStep, secondStepCookie } from "../sign-in";
import { throttlePolicy } from "../throttle";
import { secondFactorsOf } from "./factors";
import { beginPasskeyCeremony } from "./passkey-assertions";
import {
  addPasskey,
  passkeyCeremonyLifetimeMs,
  passkeyRegistrationOptions,
  relyingParty,
  removePasskey,
} from "./passkeys";

// Each ceremony comes from an address of its own (freshAddress): the test files share the throttle's table.
const chrome = "Mozilla/5.0 Chrome/140.0";
const minutesAfter = (t: Date, minutes: number) => new Date(t.getTime() + minutes * 60_000);

const newAuthenticator = () => {
  const rp = relyingParty();
  return softAuthenticator({ origin: rp.origin, rpId: rp.id });
};

/** A person, their browser, and a passkey of theirs added from it. */
async function personWithPasskey(name = "Laptop") {
  const { owner } = await makeAgency({ locations: 0 });
  const jar = memoryCookieJar();
  const authenticator = newAuthenticator();
  const options = await passkeyRegistrationOptions(owner, browserHashOf(jar));
  const { response, credential } = authenticator.register(options);
  const added = await addPasskey(owner, { name, response: JSON.stringify(response) }, browserHashOf(jar));
  return { owner, jar, authenticator, credential, added };
}

/** A discoverable sign-in from `jar`'s browser with the authenticator's passkey. */
async function signInWithPasskey(
  jar: CookieJar,
  authenticator: ReturnType<typeof newAuthenticator>,
  address = freshAddress(),
) {
  const options = await passkeySignInOptions("sign-in", jar);
  const response = JSON.stringify(authenticator.authenticate(options));
  return passkeyStep({ flow: "sign-in", response }, browserHeaders(address, chrome), jar);
}

describe("adding a passkey", () => {
  it("offers a discoverable credential of this relying party, never one of the person's own again", async () => {
    const { owner, jar, credential } = await personWithPasskey();
    const now = new Date();
    const options = await passkeyRegistrationOptions(owner, browserHashOf(jar), now);
    expect(options.rp).toEqual({ id: relyingParty().id, name: "Token Service" });
    expect(options.user).toMatchObject({ name: owner.email, displayName: owner.name });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "preferred", userVerification: "preferred" });
    expect(options.attestation).toBe("none");
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([credential.id]);
    const row = await db().signInChallenge.findFirstOrThrow({ where: { challenge: options.challenge } });
    expect(row).toMatchObject({ purpose: "passkey-register", userId: owner.id, browserHash: browserHashOf(jar) });
    expect(row.expiresAt.getTime() - now.getTime()).toBe(passkeyCeremonyLifetimeMs);
  });

  it("turns two-factor on with the first one (recovery codes once), audited; the second gives none", async () => {
    const { owner, jar, authenticator, added } = await personWithPasskey("Work laptop");
    expect(added.recoveryCodes).toHaveLength(10);
    expect(added.passkey).toMatchObject({ name: "Work laptop", lastUsedAt: null });
    expect(await secondFactorsOf(owner.id)).toMatchObject({ on: true, totp: false, recoveryCodesLeft: 10 });
    const options = await passkeyRegistrationOptions(owner, browserHashOf(jar));
    const second = await addPasskey(
      owner,
      { name: "  Phone  ", response: JSON.stringify(authenticator.register(options).response) },
      browserHashOf(jar),
    );
    expect(second.recoveryCodes).toBeUndefined();
    expect((await secondFactorsOf(owner.id)).passkeys.map((p) => p.name)).toEqual(["Work laptop", "Phone"]);
    const actions = (await db().auditLog.findMany({ where: { targetId: owner.id } })).map((a) => a.action);
    expect(actions.filter((a) => a === "passkey_added")).toHaveLength(2);
    expect(actions).toContain("two_factor_enabled");
  });

  it("sent again after a lost answer, under the same key: the first passkey and recovery codes, nothing twice", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const jar = memoryCookieJar();
    const options = await passkeyRegistrationOptions(owner, browserHashOf(jar));
    const input = { name: "Laptop", response: JSON.stringify(newAuthenticator().register(options).response) };
    const key = "add-passkey-once";
    const first = await addPasskey(owner, input, browserHashOf(jar), new Date(), { idempotencyKey: key });
    const again = await addPasskey(owner, input, browserHashOf(jar), new Date(), { idempotencyKey: key });
    expect(first.recoveryCodes).toHaveLength(10);
    expect(again).toEqual({ passkey: { id: first.passkey.id, name: "Laptop" }, recoveryCodes: first.recoveryCodes });
    expect((await secondFactorsOf(owner.id)).passkeys).toHaveLength(1);
    const audited = await db().auditLog.count({ where: { targetId: owner.id, action: "passkey_added" } });
    expect(audited).toBe(1);
    // Without the key the spent ceremony is refused, as before; another name under the key is a conflict.
    await expect(addPasskey(owner, input, browserHashOf(jar))).rejects.toMatchObject({ kind: "invalid" });
    await expect(
      addPasskey(owner, { ...input, name: "Phone" }, browserHashOf(jar), new Date(), { idempotencyKey: key }),
    ).rejects.toMatchObject({ kind: "conflict" });
  });

  it("names it with 1 to 60 characters, refused beside the field otherwise", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const jar = memoryCookieJar();
    const options = await passkeyRegistrationOptions(owner, browserHashOf(jar));
    const response = JSON.stringify(newAuthenticator().register(options).response);
    for (const name of ["", "   ", "x".repeat(61)]) {
      await expect(addPasskey(owner, { name, response }, browserHashOf(jar))).rejects.toMatchObject({
        kind: "invalid",
        field: "name",
      });
    }
    // A refused name did not use the challenge up.
    await addPasskey(owner, { name: "x".repeat(60), response }, browserHashOf(jar));
  });

  it("takes an answer once, in the browser that asked, for the person who asked, within 5 minutes", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const { owner: other } = await makeAgency({ locations: 0 });
    const jar = memoryCookieJar();
    const authenticator = newAuthenticator();
    const t = new Date();
    const answer = async () =>
      JSON.stringify(authenticator.register(await passkeyRegistrationOptions(owner, browserHashOf(jar), t)).response);
    const refused = { kind: "invalid" };

    const elsewhere = memoryCookieJar();
    await expect(
      addPasskey(owner, { name: "A", response: await answer() }, browserHashOf(elsewhere), t),
    ).rejects.toMatchObject(refused);
    await expect(
      addPasskey(other, { name: "A", response: await answer() }, browserHashOf(jar), t),
    ).rejects.toMatchObject(refused);
    const late = minutesAfter(t, 5);
    await expect(
      addPasskey(owner, { name: "A", response: await answer() }, browserHashOf(jar), late),
    ).rejects.toMatchObject(refused);
    const once = await answer();
    await addPasskey(owner, { name: "A", response: once }, browserHashOf(jar), t);
    await expect(addPasskey(owner, { name: "A", response: once }, browserHashOf(jar), t)).rejects.toMatchObject(
      refused,
    );
    // Another origin's answer (a phishing page) is not verified.
    const phished = authenticator.register(await passkeyRegistrationOptions(owner, browserHashOf(jar), t), {
      origin: "https://evil.example",
    });
    await expect(
      addPasskey(owner, { name: "B", response: JSON.stringify(phished.response) }, browserHashOf(jar), t),
    ).rejects.toMatchObject(refused);
    expect((await secondFactorsOf(owner.id)).passkeys).toHaveLength(1);
    expect((await secondFactorsOf(other.id)).passkeys).toHaveLength(0);
  });
});

describe("signing in with a passkey, no e-mail or password", () => {
  it("offers every passkey of the site, requires user verification, and signs its person in", async () => {
    const { owner, jar, authenticator, credential } = await personWithPasskey();
    const options = await passkeySignInOptions("sign-in", jar);
    expect(options.allowCredentials).toEqual([]);
    expect(options.userVerification).toBe("required");
    expect(options.rpId).toBe(relyingParty().id);
    const before = await db().passkey.findUniqueOrThrow({ where: { id: credential.id } });
    const user = await passkeyStep(
      { flow: "sign-in", response: JSON.stringify(authenticator.authenticate(options)) },
      browserHeaders(freshAddress(), chrome),
      jar,
    );
    expect(user).toMatchObject({ id: owner.id, email: owner.email, browserHash: browserHashOf(jar) });
    const after = await db().passkey.findUniqueOrThrow({ where: { id: credential.id } });
    expect(after.counter).toBe(before.counter + 1n);
    expect(after.lastUsedAt).toEqual(expect.any(Date));
  });

  it("refuses a replayed answer, another browser's, an expired one, and one without user verification", async () => {
    const { jar, authenticator } = await personWithPasskey();
    const address = freshAddress();
    const t = new Date();
    const step = (response: unknown, browser: CookieJar, now = t) =>
      signInOutcome(
        passkeyStep(
          { flow: "sign-in", response: JSON.stringify(response) },
          browserHeaders(address, chrome),
          browser,
          now,
        ),
      );

    const used = authenticator.authenticate(await passkeySignInOptions("sign-in", jar, t));
    expect(await step(used, jar)).toBe("signed in");
    expect(await step(used, jar)).toBe("passkey-failed");

    const elsewhere = memoryCookieJar();
    expect(await step(authenticator.authenticate(await passkeySignInOptions("sign-in", jar, t)), elsewhere)).toBe(
      "passkey-failed",
    );
    const late = minutesAfter(t, 5);
    expect(await step(authenticator.authenticate(await passkeySignInOptions("sign-in", jar, t)), jar, late)).toBe(
      "passkey-failed",
    );
    const unverified = authenticator.authenticate(await passkeySignInOptions("sign-in", jar, t), undefined, {
      userVerified: false,
    });
    expect(await step(unverified, jar)).toBe("passkey-failed");
    expect(await step("not json", jar)).toBe("passkey-failed");
  });

  it("refuses a counter that went back (a cloned authenticator)", async () => {
    const { jar, authenticator } = await personWithPasskey();
    await signInWithPasskey(jar, authenticator);
    await signInWithPasskey(jar, authenticator);
    const options = await passkeySignInOptions("sign-in", jar);
    const cloned = authenticator.authenticate(options, undefined, { counter: 1 });
    expect(
      await signInOutcome(
        passkeyStep({ flow: "sign-in", response: JSON.stringify(cloned) }, browserHeaders(freshAddress(), chrome), jar),
      ),
    ).toBe("passkey-failed");
  });

  it("signs no one in once the passkey or the person is removed", async () => {
    const { owner, jar, authenticator, credential } = await personWithPasskey();
    await removePasskey(owner, credential.id);
    expect(await signInOutcome(signInWithPasskey(jar, authenticator))).toBe("passkey-failed");

    const second = await personWithPasskey();
    await db().user.update({ where: { id: second.owner.id }, data: { removedAt: new Date() } });
    expect(await signInOutcome(signInWithPasskey(second.jar, second.authenticator))).toBe("passkey-failed");
  });

  it("throttles failed answers by address, not the person's own", async () => {
    const { jar, authenticator } = await personWithPasskey();
    const attacker = freshAddress();
    const forged = async () => {
      const answer = authenticator.authenticate(await passkeySignInOptions("sign-in", jar));
      answer.response.signature = answer.response.signature.replace(/^.{8}/, "AAAAAAAA");
      return signInOutcome(
        passkeyStep({ flow: "sign-in", response: JSON.stringify(answer) }, browserHeaders(attacker, chrome), jar),
      );
    };
    const outcomes: string[] = [];
    for (let i = 0; i < throttlePolicy.accountAtAddress.maxFailures; i++) outcomes.push(await forged());
    expect(outcomes.slice(0, -1)).toEqual(
      Array(throttlePolicy.accountAtAddress.maxFailures - 1).fill("passkey-failed"),
    );
    expect(outcomes.at(-1)).toBe("throttled");
    expect(await signInOutcome(signInWithPasskey(jar, authenticator, attacker))).toBe("throttled");
    let own = freshAddress();
    while (own === attacker) own = freshAddress();
    expect(await signInOutcome(signInWithPasskey(jar, authenticator, own))).toBe("signed in");
  });
});

describe("a passkey as the second step", () => {
  async function afterPassword(email: string, jar: CookieJar, address: string) {
    return signInOutcome(passwordStep({ email, password: testPassword }, browserHeaders(address, chrome), jar));
  }

  it("is offered after the password, limited to the person's passkeys, and ends the step", async () => {
    const { owner, authenticator, credential } = await personWithPasskey();
    const jar = memoryCookieJar();
    const address = freshAddress();
    expect(await afterPassword(owner.email, jar, address)).toBe("second-factor-passkey");
    const options = await passkeySignInOptions("second-factor", jar);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([credential.id]);
    // Tied to the step: its challenge is on the step's own row.
    const stepId = jar.get(secondStepCookie) ?? "";
    expect((await db().signInChallenge.findUniqueOrThrow({ where: { id: stepId } })).challenge).toBe(options.challenge);
    // No user verification needed after a right password.
    const response = JSON.stringify(authenticator.authenticate(options, undefined, { userVerified: false }));
    expect(await passkeyStep({ flow: "second-factor", response }, browserHeaders(address, chrome), jar)).toMatchObject({
      id: owner.id,
    });
    expect(jar.get(secondStepCookie)).toBeUndefined();
    expect(await db().signInChallenge.count({ where: { id: stepId } })).toBe(0);
  });

  it("refuses another person's passkey, and the step goes on for the right answer", async () => {
    const { owner, authenticator } = await personWithPasskey();
    const intruder = await personWithPasskey();
    const jar = memoryCookieJar();
    const address = freshAddress();
    await afterPassword(owner.email, jar, address);
    const options = await passkeySignInOptions("second-factor", jar);
    // The intruder's authenticator answers this step's challenge with the intruder's own passkey.
    const theirs = intruder.authenticator.authenticate(options, intruder.credential);
    expect(
      await signInOutcome(
        passkeyStep({ flow: "second-factor", response: JSON.stringify(theirs) }, browserHeaders(address, chrome), jar),
      ),
    ).toBe("passkey-failed");
    // That answer used the challenge up; a new one, with the person's own passkey, signs in.
    const stale = JSON.stringify(authenticator.authenticate(options));
    expect(
      await signInOutcome(
        passkeyStep({ flow: "second-factor", response: stale }, browserHeaders(address, chrome), jar),
      ),
    ).toBe("passkey-failed");
    const fresh = JSON.stringify(authenticator.authenticate(await passkeySignInOptions("second-factor", jar)));
    expect(
      await signInOutcome(
        passkeyStep({ flow: "second-factor", response: fresh }, browserHeaders(address, chrome), jar),
      ),
    ).toBe("signed in");
  });

  it("belongs to the browser that passed the password, and only while the step lasts", async () => {
    const { owner, authenticator, added } = await personWithPasskey();
    const jar = memoryCookieJar();
    const address = freshAddress();
    const t = new Date();
    await signInOutcome(
      passwordStep({ email: owner.email, password: testPassword }, browserHeaders(address, chrome), jar, t),
    );
    expect(await signInOutcome(passkeySignInOptions("second-factor", memoryCookieJar(), t))).toBe("step-expired");
    const options = await passkeySignInOptions("second-factor", jar, t);
    const response = JSON.stringify(authenticator.authenticate(options));
    const copied = memoryCookieJar({ [secondStepCookie]: jar.get(secondStepCookie) ?? "" });
    expect(
      await signInOutcome(passkeyStep({ flow: "second-factor", response }, browserHeaders(address, chrome), copied, t)),
    ).toBe("step-expired");
    expect(
      await signInOutcome(
        passkeyStep({ flow: "second-factor", response }, browserHeaders(address, chrome), jar, minutesAfter(t, 5)),
      ),
    ).toBe("step-expired");
    // A recovery code still answers the step (the passkey's challenge aside).
    const code = added.recoveryCodes?.[0] ?? "";
    expect(await signInOutcome(secondFactorStep({ code }, browserHeaders(address, chrome), jar, t))).toBe("signed in");
  });
});

describe("removing a passkey", () => {
  it("removes only the person's own; the last one turns two-factor off, audited", async () => {
    const { owner, credential } = await personWithPasskey("Key");
    const { owner: other } = await makeAgency({ locations: 0 });
    await expect(removePasskey(other, credential.id)).rejects.toMatchObject({ kind: "not_found" });
    await removePasskey(owner, credential.id);
    expect(await secondFactorsOf(owner.id)).toMatchObject({ on: false, passkeys: [], recoveryCodesLeft: 0 });
    const audit = await db().auditLog.findMany({
      where: { targetId: owner.id },
      select: { action: true, details: true },
    });
    expect(audit).toEqual(
      expect.arrayContaining([
        { action: "passkey_removed", details: { name: "Key" } },
        expect.objectContaining({ action: "two_factor_disabled" }),
      ]),
    );
    await expect(removePasskey(owner, credential.id)).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("Confirm it's you with a passkey", () => {
  it("marks the session authenticated for the person's own passkey in this browser only", async () => {
    const { owner, jar, authenticator } = await personWithPasskey();
    const intruder = await personWithPasskey();
    const long = new Date(Date.now() - 60 * 60_000);
    const { sid } = await startSession({ id: owner.id, sessionVersion: 0 }, { userAgent: "", address: "x" }, long);
    const authenticatedAt = async () =>
      (await db().userSession.findUniqueOrThrow({ where: { id: sid } })).authenticatedAt.getTime();
    const address = freshAddress();

    const options = await beginPasskeyConfirmation(owner.id, browserHashOf(jar));
    expect(options.allowCredentials).toHaveLength(1);
    const confirm = (response: unknown, browser: CookieJar) =>
      confirmIdentityWithPasskey(owner, sid, JSON.stringify(response), browserHashOf(browser), address);

    const theirs = intruder.authenticator.authenticate(options, intruder.credential);
    await expect(confirm(theirs, jar)).rejects.toMatchObject({ kind: "invalid" });
    const elsewhere = authenticator.authenticate(await beginPasskeyConfirmation(owner.id, browserHashOf(jar)));
    await expect(confirm(elsewhere, memoryCookieJar())).rejects.toMatchObject({ kind: "invalid" });
    // A sign-in's challenge is not a confirmation's.
    const signIn = authenticator.authenticate(await beginPasskeyCeremony("passkey-sign-in", null, browserHashOf(jar)));
    await expect(confirm(signIn, jar)).rejects.toMatchObject({ kind: "invalid" });
    expect(await authenticatedAt()).toBe(long.getTime());

    await confirm(authenticator.authenticate(await beginPasskeyConfirmation(owner.id, browserHashOf(jar))), jar);
    expect(await authenticatedAt()).toBeGreaterThan(long.getTime());
  });
});
