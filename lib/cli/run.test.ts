import { describe, expect, it } from "vitest";
import { checkCredentials } from "@/lib/accounts/users";
import { beginTotpSetup, confirmTotpSetup } from "@/lib/auth/two-factor/authenticator-app";
import { secondFactorsOf } from "@/lib/auth/two-factor/factors";
import { totpCodeAt } from "@/lib/auth/two-factor/totp";
import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/refusal";
import { testPassword } from "@/lib/testing/fixtures";
import { holdKeyRotationLock, holdWebhookKeyRotationLock } from "@/lib/testing/key-rotation-lock";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { webhookSigningKeys } from "@/lib/webhooks/signing-key";
import { parseArgv, runCommand } from "./run";

describe("parsing the command line", () => {
  it("reads flags, repeated flags and --flag=value", () => {
    expect(parseArgv(["user:create", "--name", "A B", "--location", "l1", "--location=l2", "--flag"])).toEqual({
      command: "user:create",
      flags: { name: "A B", location: ["l1", "l2"], flag: true },
    });
  });

  it("refuses stray arguments", () => {
    expect(() => parseArgv(["company:create", "oops"])).toThrow(Refusal);
  });
});

describe("the operator commands", () => {
  it("create an agency, a sub-account and a user who can sign in", async () => {
    const company = await runCommand("company:create", { name: "CLI Agency", "whitelabel-domain": "App.Example.com" });
    expect(company).toEqual({ id: expect.any(String) });
    const stored = await db().company.findUniqueOrThrow({ where: { id: String(company.id) } });
    expect(stored.whitelabelDomain).toBe("app.example.com");
    const location = await runCommand("location:create", { company: String(company.id), name: "Downtown" });
    const email = `cli-${Date.now()}@example.test`;
    const user = await runCommand("user:create", {
      email,
      password: testPassword,
      name: "Cli User",
      role: "account_user",
      company: String(company.id),
      location: String(location.id),
      "location-pi": "on",
    });
    const actor = await checkCredentials(email, testPassword);
    expect(actor).toMatchObject({
      id: user.id,
      role: "account_user",
      locationIds: [location.id],
      locationPrivateIntegrations: true,
    });
    await expect(
      runCommand("labs:set", { company: String(company.id), feature: "private-integrations", enabled: "true" }),
    ).resolves.toEqual({ enabled: true });
  });

  it("user:create takes the operator's password as given, short or not (SPEC.md sets no rule)", async () => {
    const company = await runCommand("company:create", { name: "Short Password Agency" });
    const email = `short-${Date.now()}@example.test`;
    await runCommand("user:create", {
      email,
      password: "pw",
      name: "Short",
      role: "agency_admin",
      company: String(company.id),
    });
    expect(await checkCredentials(email, "pw")).toMatchObject({ role: "agency_admin" });
  });

  it("signing-key:rotate prints the new kid and the one it replaced", async () => {
    const release = await holdKeyRotationLock();
    try {
      const { kid: current } = await activeSigningKey();
      const first = await runCommand("signing-key:rotate", {});
      expect(first).toEqual({ kid: expect.any(String), previousKid: current });
      const second = await runCommand("signing-key:rotate", {});
      expect(second).toEqual({ kid: expect.any(String), previousKid: first.kid });
    } finally {
      await release();
    }
  });

  it("user:set-password sets the password, prints the id, and the old password stops working", async () => {
    const company = await runCommand("company:create", { name: "Set Password Agency" });
    const email = `set-${Date.now()}@example.test`;
    const user = await runCommand("user:create", {
      email,
      password: testPassword,
      name: "Forgetful",
      role: "agency_owner",
      company: String(company.id),
    });
    expect(await runCommand("user:set-password", { email, password: "a fresh one" })).toEqual({ id: user.id });
    expect(await checkCredentials(email, testPassword)).toBeNull();
    expect(await checkCredentials(email, "a fresh one")).toMatchObject({ id: user.id, sessionVersion: 1 });
  });

  it("user:reset-2fa removes the person's second factors and prints the id", async () => {
    const company = await runCommand("company:create", { name: "Lost Phone Agency" });
    const email = `phone-${Date.now()}@example.test`;
    const user = await runCommand("user:create", {
      email,
      password: testPassword,
      name: "Lost Phone",
      role: "agency_owner",
      company: String(company.id),
    });
    const { secret } = await beginTotpSetup({ id: String(user.id), email });
    await confirmTotpSetup(String(user.id), totpCodeAt(secret, new Date()));
    expect((await secondFactorsOf(String(user.id))).on).toBe(true);
    expect(await runCommand("user:reset-2fa", { email })).toEqual({ id: user.id });
    expect(await secondFactorsOf(String(user.id))).toMatchObject({ on: false, recoveryCodesLeft: 0 });
    expect(await checkCredentials(email, testPassword)).toMatchObject({ sessionVersion: 1 });
  });

  it("webhook-key:rotate prints the new kid and the one it replaced; both sign webhooks", async () => {
    const release = await holdWebhookKeyRotationLock();
    try {
      const { signing } = await webhookSigningKeys();
      const first = await runCommand("webhook-key:rotate", {});
      expect(first).toEqual({ kid: expect.any(String), previousKid: signing[0]?.kid });
      const second = await runCommand("webhook-key:rotate", {});
      expect(second).toEqual({ kid: expect.any(String), previousKid: first.kid });
      const now = (await webhookSigningKeys()).signing.map((k) => k.kid);
      expect(now).toEqual(expect.arrayContaining([second.kid, first.kid, ...signing.map((k) => k.kid)]));
    } finally {
      await release();
    }
  });

  it.each([
    [undefined, {}, "Usage"],
    ["nope", {}, 'Unknown command "nope"'],
    ["company:create", {}, "--name is required"],
    ["company:create", { name: "A", color: "red" }, "Unknown flag --color"],
    ["company:create", { name: ["A", "B"] }, "--name may be given only once"],
    ["company:create", { name: "A", "whitelabel-domain": "not a host" }, "--whitelabel-domain"],
    ["location:create", { company: "missing", name: "X" }, "no agency with id missing"],
    ["labs:set", { company: "x", feature: "other", enabled: "true" }, "--feature"],
    ["signing-key:rotate", { kid: "k1" }, "Unknown flag --kid"],
    ["webhook-key:rotate", { kid: "k1" }, "Unknown flag --kid"],
    ["labs:set", { company: "x", feature: "private-integrations", enabled: "yes" }, "--enabled"],
    ["user:create", { email: "bad", password: testPassword, name: "A", role: "agency_user", company: "x" }, "e-mail"],
    ["user:create", { email: "a@b.test", password: "x", name: "A", role: "boss", company: "x" }, "--role"],
    ["user:set-password", { email: "a@b.test" }, "--password is required"],
    ["user:set-password", { email: "nobody@example.test", password: "x" }, "no user with the e-mail address"],
    ["user:reset-2fa", {}, "--email is required"],
    ["user:reset-2fa", { email: "nobody@example.test" }, "no user with the e-mail address"],
  ] as const)("%s %o refuses with a message", async (command, flags, words) => {
    await expect(runCommand(command, flags as never)).rejects.toThrow(words);
  });
});
