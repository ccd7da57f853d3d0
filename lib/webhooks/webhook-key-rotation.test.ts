import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { databaseHandle, db } from "@/lib/db/client";
import { apiClient, operatorCommand } from "@/lib/testing/api-client";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { holdWebhookKeyRotationLock } from "@/lib/testing/key-rotation-lock";
import { makeApp } from "@/lib/testing/oauth";
import { secondInstance } from "@/lib/testing/second-instance";
import { deliverOne } from "@/lib/testing/webhook-delivery";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { ghlSignatureVerifies, sdkOutcome, v1aVerifies } from "@/lib/testing/webhook-verifiers";
import {
  type PublishedWebhookKey,
  publicKeyPem,
  rotateWebhookKey,
  rotateWebhookKeyInDatabase,
  WEBHOOK_KEY_OVERLAP_MS,
  WEBHOOK_KEY_USE,
  type WebhookSigningKey,
  webhookKeysAt,
  webhookKeysJwks,
  webhookPublicKeyPem,
  webhookSigningKeys,
} from "./signing-key";

/**
 * `webhook-key:rotate`. For WEBHOOK_KEY_OVERLAP_MS after a
 * rotation both keys sign `v1a` and are published; `x-ghl-signature` and the PEM stay under the old
 * key (receivers pinned to it keep verifying), then the new key takes over and the old one is gone.
 * On PostgreSQL every test file shares one database: rotations hold the webhook-key test lock, and
 * assertions are relative to the keys in force when the test begins.
 */

const HOUR_MS = 3_600_000;
const kids = (keys: { kid: string }[]) => keys.map((k) => k.kid);

let releaseLock: () => Promise<void>;
beforeAll(async () => {
  releaseLock = await holdWebhookKeyRotationLock();
});
afterAll(async () => {
  await releaseLock();
});

describe("which keys sign when (the rule)", () => {
  function key(kid: string, createdAt: Date, retiredAt: Date | null): WebhookSigningKey {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const { x } = publicKey.export({ format: "jwk" });
    return { kid, privateKey, publicJwk: { kty: "OKP", crv: "Ed25519", x: String(x) }, createdAt, retiredAt };
  }
  const t0 = new Date("2026-01-10T00:00:00.000Z");
  const t1 = later(t0, 2 * 24 * HOUR_MS);
  const first = key("k1", new Date("2026-01-01T00:00:00.000Z"), t0);
  const second = key("k2", t0, t1);
  const third = key("k3", t1, null);

  it("before a rotation one key signs everything", () => {
    const only = key("k1", first.createdAt, null);
    expect(webhookKeysAt([only], later(t0, -1))).toEqual({ signing: [only], platform: only, next: undefined });
  });

  it("during the overlap both sign v1a, the old one x-ghl-signature, and the new one takes over at its end", () => {
    const now = later(t0, HOUR_MS);
    const keys = webhookKeysAt([first, key("k2", t0, null)], now);
    expect(kids(keys.signing)).toEqual(["k2", "k1"]);
    expect(keys.platform.kid).toBe("k1");
    expect(keys.next?.key.kid).toBe("k2");
    expect(keys.next?.takesOverAt).toEqual(later(t0, WEBHOOK_KEY_OVERLAP_MS));
    // The last millisecond of the overlap, then the first after it.
    expect(kids(webhookKeysAt([first, second], later(t0, WEBHOOK_KEY_OVERLAP_MS - 1)).signing)).toContain("k1");
    const after = webhookKeysAt([first, key("k2", t0, null)], later(t0, WEBHOOK_KEY_OVERLAP_MS));
    expect(kids(after.signing)).toEqual(["k2"]);
    expect(after.platform.kid).toBe("k2");
    expect(after.next).toBeUndefined();
  });

  it("two rotations within a week: three keys sign, each takes x-ghl-signature over in turn", () => {
    const during = webhookKeysAt([third, first, second], later(t1, HOUR_MS));
    expect(kids(during.signing)).toEqual(["k3", "k2", "k1"]);
    expect(during.platform.kid).toBe("k1");
    expect(during.next).toMatchObject({ key: { kid: "k2" }, takesOverAt: later(t0, WEBHOOK_KEY_OVERLAP_MS) });
    const middle = webhookKeysAt([third, first, second], later(t0, WEBHOOK_KEY_OVERLAP_MS));
    expect(kids(middle.signing)).toEqual(["k3", "k2"]);
    expect(middle.next).toMatchObject({ key: { kid: "k3" }, takesOverAt: later(t1, WEBHOOK_KEY_OVERLAP_MS) });
    expect(kids(webhookKeysAt([third, first, second], later(t1, WEBHOOK_KEY_OVERLAP_MS)).signing)).toEqual(["k3"]);
  });
});

describe("webhook-key:rotate in the database", () => {
  it("keeps the old key signing and published for the overlap, then only the new one", async () => {
    const t0 = new Date();
    const before = await webhookSigningKeys(t0);
    const oldPem = publicKeyPem(before.platform);
    const rotation = await rotateWebhookKey(t0);
    expect(rotation).toEqual({ kid: expect.any(String), previousKid: before.signing[0]?.kid });
    const stored = await db().signingKey.findUniqueOrThrow({ where: { kid: rotation.kid } });
    expect(stored).toMatchObject({ use: WEBHOOK_KEY_USE, alg: "EdDSA", retiredAt: null, createdAt: t0 });
    expect(stored.privateKeyEncrypted).not.toContain("PRIVATE KEY");
    expect(await db().signingKey.count({ where: { use: WEBHOOK_KEY_USE, retiredAt: null } })).toBe(1);

    // During: the new key first, every key that signed before still there; x-ghl-signature's key unchanged.
    const during = later(t0, HOUR_MS);
    const keys = await webhookSigningKeys(during);
    expect(kids(keys.signing)).toEqual([rotation.kid, ...kids(before.signing)]);
    expect(keys.platform.kid).toBe(before.platform.kid);
    expect(await webhookPublicKeyPem(during)).toBe(oldPem);
    expect(kids((await webhookKeysJwks(during)).keys)).toEqual([rotation.kid, ...kids(before.signing)]);

    // Its last millisecond: the key it replaced still signs beside it.
    const last = await webhookSigningKeys(later(t0, WEBHOOK_KEY_OVERLAP_MS - 1));
    expect(kids(last.signing).slice(0, 2)).toEqual([rotation.kid, rotation.previousKid]);

    // After: the new key alone signs, is published, and is the PEM.
    const after = later(t0, WEBHOOK_KEY_OVERLAP_MS);
    const afterKeys = await webhookSigningKeys(after);
    expect(kids(afterKeys.signing)).toEqual([rotation.kid]);
    expect(afterKeys.next).toBeUndefined();
    expect(kids((await webhookKeysJwks(after)).keys)).toEqual([rotation.kid]);
    expect(await webhookPublicKeyPem(after)).toBe(publicKeyPem(afterKeys.platform));
    expect(await webhookPublicKeyPem(after)).not.toBe(oldPem);
  });

  it("rotated through POST /api/operator (the CLI against a running server), the routes serve both keys", async () => {
    const before = await webhookSigningKeys();
    const api = apiClient(apiRoutes);
    const answered = await operatorCommand(api, "webhook-key:rotate");
    expect(answered.status).toBe(200);
    const rotation = answered.body as { kid: string; previousKid: string };
    expect(rotation).toEqual({ kid: expect.any(String), previousKid: before.signing[0]?.kid });
    const jwks = (await api.get("/.well-known/webhook-keys")).body as { keys: PublishedWebhookKey[] };
    expect(kids(jwks.keys)).toEqual(expect.arrayContaining([rotation.kid, before.platform.kid]));
    const pem = (await api.get("/.well-known/webhook-public-key.pem")).text;
    expect(pem).toBe(publicKeyPem(before.platform));
  });
});

// Two PrismaClients with pools of their own stand in for two app instances sharing PostgreSQL.
describe.runIf(databaseHandle().kind === "postgresql")("two instances rotating at once", () => {
  const second = secondInstance();

  it("make rotations in a row, each replacing the one before, never two active keys", async () => {
    const now = new Date();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => rotateWebhookKeyInDatabase(i % 2 ? second() : db(), now)),
    );
    expect(new Set(results.map((r) => r.kid)).size).toBe(6);
    // A chain: every new key replaced a different key, and five of them replaced one made here.
    expect(new Set(results.map((r) => r.previousKid)).size).toBe(6);
    expect(results.filter((r) => kids(results).includes(r.previousKid ?? ""))).toHaveLength(5);
    const active = await second().signingKey.findMany({ where: { use: WEBHOOK_KEY_USE, retiredAt: null } });
    expect(active).toHaveLength(1);
    expect(kids(results)).toContain(active[0]?.kid);
  });
});

describe("deliveries over HTTP across a rotation", () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  const jwkKey = (key: WebhookSigningKey) => createPublicKey({ key: { ...key.publicJwk }, format: "jwk" });

  it("verify under the pinned old key and under the new one during the overlap, under the new one after", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const created = await makeApp(company.id, { webhookUrl: receiver.url });
    const t0 = new Date();
    const before = await webhookSigningKeys(t0);
    const pinnedPem = publicKeyPem(before.platform); // what an SDK user configured before the rotation
    const rotation = await rotateWebhookKey(t0);
    const newKey = (await webhookSigningKeys(t0)).signing[0] as WebhookSigningKey;
    expect(newKey.kid).toBe(rotation.kid);

    const during = await deliverOne(receiver, created.app.id, later(t0, HOUR_MS));
    expect(v1aVerifies(during, createPublicKey(pinnedPem))).toBe(true);
    expect(v1aVerifies(during, jwkKey(before.platform))).toBe(true);
    expect(v1aVerifies(during, jwkKey(newKey))).toBe(true);
    expect(ghlSignatureVerifies(during, pinnedPem)).toBe(true);
    expect((await sdkOutcome(during, created.app.clientId, pinnedPem)).isSignatureValid).toBe(true);

    const after = await deliverOne(receiver, created.app.id, later(t0, WEBHOOK_KEY_OVERLAP_MS));
    expect(String(after.headers["webhook-signature"]).match(/v1a,/g)).toHaveLength(1);
    expect(v1aVerifies(after, jwkKey(newKey))).toBe(true);
    expect(v1aVerifies(after, jwkKey(before.platform))).toBe(false);
    expect(ghlSignatureVerifies(after, publicKeyPem(newKey))).toBe(true);
    expect(ghlSignatureVerifies(after, pinnedPem)).toBe(false);
    expect((await sdkOutcome(after, created.app.clientId, publicKeyPem(newKey))).isSignatureValid).toBe(true);
  });
});

// Last: it leaves keys dated a week ahead, which would confuse the tests above.
describe("cleaning up", () => {
  // It deletes rows other test files may still sign with on a shared database: PGlite only.
  it.runIf(databaseHandle().kind === "pglite")("a rotation after the overlap deletes the keys it ended", async () => {
    const t0 = new Date();
    const first = await rotateWebhookKey(t0);
    const second = await rotateWebhookKey(later(t0, WEBHOOK_KEY_OVERLAP_MS + 1));
    const left = await db().signingKey.findMany({ where: { use: WEBHOOK_KEY_USE }, orderBy: { createdAt: "asc" } });
    expect(kids(left)).toEqual([first.kid, second.kid]);
    expect(first.previousKid).not.toBeNull();
  });
});
