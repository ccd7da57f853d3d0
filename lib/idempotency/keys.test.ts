import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "@/lib/apps/keys";
import { rotateClientSecret } from "@/lib/apps/secrets";
import { rotateWebhookSecret } from "@/lib/apps/webhook-secret-rotation";
import { beginTotpSetup, confirmTotpSetup } from "@/lib/auth/two-factor/authenticator-app";
import { redeemSecondFactorCode, regenerateRecoveryCodes } from "@/lib/auth/two-factor/factors";
import { totpCodeAt } from "@/lib/auth/two-factor/totp";
import { db } from "@/lib/db/client";
import { makeAgency, makeUser, newIdempotencyKey, type TestAgency } from "@/lib/testing/fixtures";
import { makeApp } from "@/lib/testing/oauth";
import {
  answerForgottenMessage,
  forgetShownAnswer,
  idempotencyKeyRule,
  keyReusedMessage,
  parseIdempotencyKey,
  personKey,
} from "./keys";

/**
 * Every change that makes something shown once takes an idempotency key (lib/idempotency/keys.ts): sent
 * again after a lost answer, the same secret, key pair or recovery codes come back and nothing is
 * made twice; once a screen showed it, it is forgotten. The private-integration lifecycle's own
 * promises are in lib/integrations/idempotency.test.ts.
 */

let agency: TestAgency;
beforeAll(async () => {
  agency = await makeAgency({ locations: 0 });
});

const auditCount = async (targetId: string, action: string) =>
  db().auditLog.count({ where: { targetId, action: action as never } });

describe("the key's syntax", () => {
  it("accepts exactly 1 to 200 visible ASCII characters, over every string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 260 }), fc.string({ unit: "binary", maxLength: 260 })), (value) => {
        const valid = value.length >= 1 && value.length <= 200 && [...value].every((c) => c >= "!" && c <= "~");
        if (valid) expect(parseIdempotencyKey(value)).toBe(value);
        else expect(() => parseIdempotencyKey(value)).toThrow(idempotencyKeyRule);
      }),
    );
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey(null)).toBeUndefined();
  });
});

describe("Generate new client secret, sent twice", () => {
  it("answers the same secret, rotates once, and keeps the secret the app's servers still use", async () => {
    const created = await makeApp(agency.company.id);
    const before = await db().app.findUniqueOrThrow({ where: { id: created.app.id } });
    const key = newIdempotencyKey();
    const first = await rotateClientSecret(created.app.id, { overlap: "24h", idempotencyKey: key }, agency.owner);
    const again = await rotateClientSecret(created.app.id, { overlap: "24h", idempotencyKey: key }, agency.owner);
    expect(again).toEqual(first);
    const after = await db().app.findUniqueOrThrow({ where: { id: created.app.id } });
    // The original secret is still the previous one: a second rotation would have dropped it.
    expect(after.previousClientSecretHash).toBe(before.clientSecretHash);
    expect(await auditCount(created.app.id, "app_secret_rotated")).toBe(1);
  });

  it("refuses the same key with another overlap, and another person's same key is another key", async () => {
    const created = await makeApp(agency.company.id);
    const key = newIdempotencyKey();
    await rotateClientSecret(created.app.id, { overlap: "24h", idempotencyKey: key }, agency.owner);
    await expect(
      rotateClientSecret(created.app.id, { overlap: "7d", idempotencyKey: key }, agency.owner),
    ).rejects.toMatchObject({ kind: "conflict", message: keyReusedMessage });
    const admin = await makeUser(agency.company.id, "agency_admin");
    const theirs = await rotateClientSecret(created.app.id, { overlap: "24h", idempotencyKey: key }, admin);
    expect(await auditCount(created.app.id, "app_secret_rotated")).toBe(2);
    expect(theirs.clientSecret).toMatch(/\S/);
  });

  it("is refused once the screen said it showed the secret: it is not kept", async () => {
    const created = await makeApp(agency.company.id);
    const key = newIdempotencyKey();
    await rotateClientSecret(created.app.id, { idempotencyKey: key }, agency.owner);
    expect(await forgetShownAnswer(personKey(agency.owner.id), key)).toBe(true);
    await expect(rotateClientSecret(created.app.id, { idempotencyKey: key }, agency.owner)).rejects.toMatchObject({
      kind: "conflict",
      message: answerForgottenMessage,
    });
    expect(await auditCount(created.app.id, "app_secret_rotated")).toBe(1);
    // Nothing of the secret is left in the stored answer.
    const row = await db().idempotentAnswer.findUniqueOrThrow({
      where: { actorKey_key: { actorKey: personKey(agency.owner.id), key } },
    });
    expect(row.answerEncrypted.length).toBeLessThan(120);
  });
});

it("another person's `forgetShownAnswer` with the same key leaves mine as it was", async () => {
  const created = await makeApp(agency.company.id);
  const other = await makeUser(agency.company.id, "agency_admin");
  const key = newIdempotencyKey();
  const first = await rotateClientSecret(created.app.id, { idempotencyKey: key }, agency.owner);
  expect(await forgetShownAnswer(personKey(other.id), key)).toBe(false);
  expect(await rotateClientSecret(created.app.id, { idempotencyKey: key }, agency.owner)).toEqual(first);
});

describe("Rotate webhook secret, sent twice", () => {
  it("answers the same secret and rotates once", async () => {
    const created = await makeApp(agency.company.id, { webhookUrl: "https://hooks.example/app" });
    const key = newIdempotencyKey();
    const first = await rotateWebhookSecret(created.app.id, agency.owner, new Date(), { idempotencyKey: key });
    const again = await rotateWebhookSecret(created.app.id, agency.owner, new Date(), { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(await auditCount(created.app.id, "app_webhook_secret_rotated")).toBe(1);
  });
});

describe("Generate key pair, sent twice", () => {
  it("answers the same pair and adds one key", async () => {
    const created = await makeApp(agency.company.id);
    const key = newIdempotencyKey();
    const first = await generateKeyPair(created.app.id, "ES256", agency.owner, { idempotencyKey: key });
    const again = await generateKeyPair(created.app.id, "ES256", agency.owner, { idempotencyKey: key });
    expect(again.privateKeyPem).toBe(first.privateKeyPem);
    expect(again.key.kid).toBe(first.key.kid);
    expect(await db().appKey.count({ where: { appId: created.app.id } })).toBe(1);
    // Another press (a new key) makes another pair.
    await generateKeyPair(created.app.id, "ES256", agency.owner, { idempotencyKey: newIdempotencyKey() });
    expect(await db().appKey.count({ where: { appId: created.app.id } })).toBe(2);
  });
});

describe("two-factor answers sent twice", () => {
  const t0 = new Date("2099-06-01T12:00:00Z");

  it("Verify of the authenticator app: the same recovery codes, which work", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const { secret } = await beginTotpSetup(owner);
    const key = newIdempotencyKey();
    const code = totpCodeAt(secret, t0);
    const first = await confirmTotpSetup(owner.id, code, t0, { idempotencyKey: key });
    const again = await confirmTotpSetup(owner.id, code, t0, { idempotencyKey: key });
    expect(first.recoveryCodes).toHaveLength(10);
    expect(again).toEqual(first);
    // Without the key, the repeat is what it always was: already set up.
    await expect(confirmTotpSetup(owner.id, code, t0)).rejects.toMatchObject({ kind: "conflict" });
    expect(await redeemSecondFactorCode(owner.id, first.recoveryCodes?.[0] ?? "", t0)).toMatchObject({
      via: "recovery-code",
    });
  });

  it("Regenerate recovery codes: the same ten, replaced once", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const { secret } = await beginTotpSetup(owner);
    await confirmTotpSetup(owner.id, totpCodeAt(secret, t0), t0);
    const key = newIdempotencyKey();
    const first = await regenerateRecoveryCodes(owner.id, t0, { idempotencyKey: key });
    const again = await regenerateRecoveryCodes(owner.id, t0, { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(await db().recoveryCode.count({ where: { userId: owner.id } })).toBe(10);
    expect(await redeemSecondFactorCode(owner.id, again[3] ?? "", t0)).toMatchObject({ via: "recovery-code" });
  });
});
