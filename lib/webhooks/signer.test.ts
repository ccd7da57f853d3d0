import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { WebhookManager } from "@gohighlevel/api-client/dist/lib/webhook/webhook-manager";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { applyEdit } from "@/lib/testing/text-edits";
import { verifyWebhookSignature, webhookSignatureHeaders } from "./signer";
import {
  currentWebhookSigningKey,
  ensureWebhookSigningKey,
  resetWebhookSigningKeyCache,
  WEBHOOK_KEY_USE,
  webhookKeysJwks,
  webhookPublicKeyPem,
} from "./signing-key";
import { newWebhookSecret } from "./webhook-secret";

const body = JSON.stringify({ type: "INSTALL", appId: "app_1", webhookId: "3b2f…" });
const id = "0b6c7a0e-9a43-4b8e-a1a8-1f1f4b7a2c11";

describe("webhook signing key", () => {
  it("is created once, even when instances ask at the same time, and stored encrypted", async () => {
    resetWebhookSigningKeyCache();
    const keys = await Promise.all([1, 2, 3, 4, 5].map(() => ensureWebhookSigningKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    const rows = await db().signingKey.findMany({ where: { use: WEBHOOK_KEY_USE, retiredAt: null } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ alg: "EdDSA", use: "webhook" });
    expect(rows[0]?.privateKeyEncrypted).not.toContain("PRIVATE KEY");
    // The newest key (after a webhook-key:rotate, x-ghl-signature's key may still be the old one).
    expect(keys[0]?.kid).toBe(rows[0]?.kid);
  });

  it("is published as an OKP Ed25519 JWKS", async () => {
    const jwks = await webhookKeysJwks();
    const key = await currentWebhookSigningKey();
    expect(jwks.keys).toContainEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: key.publicJwk.x,
      kid: key.kid,
    });
    for (const jwk of jwks.keys) expect(Object.keys(jwk).sort()).toEqual(["crv", "kid", "kty", "x"]);
  });
});

describe("Standard Webhooks signature", () => {
  it("verifies with the published JWKS key (imported with node:crypto)", async () => {
    const key = await currentWebhookSigningKey();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookSignatureHeaders({ id, timestamp, body }, { secrets: [], keys: [key.privateKey] });
    expect(headers["webhook-id"]).toBe(id);
    expect(headers["webhook-timestamp"]).toBe(String(timestamp));
    expect(headers["webhook-signature"]).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);

    const jwks = await webhookKeysJwks();
    expect(verifyWebhookSignature({ headers, body, keys: jwks })).toBe(true);
    const imported = createPublicKey({
      key: jwks.keys.find((k) => k.kid === key.kid) as unknown as import("node:crypto").JsonWebKey,
      format: "jwk",
    });
    expect(verifyWebhookSignature({ headers, body, keys: imported })).toBe(true);
    expect(verifyWebhookSignature({ headers: new Headers(headers), body: Buffer.from(body), keys: jwks })).toBe(true);
  });

  it("fails when anything signed is tampered with, or the key is another", async () => {
    const key = await currentWebhookSigningKey();
    const jwks = await webhookKeysJwks();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookSignatureHeaders({ id, timestamp, body }, { secrets: [], keys: [key.privateKey] });
    const cases: [string, Record<string, string>, string][] = [
      ["body", headers, body.replace("INSTALL", "UNINSTALL")],
      ["one byte of body", headers, `${body} `],
      ["webhook-id", { ...headers, "webhook-id": `${id}x` }, body],
      ["webhook-timestamp", { ...headers, "webhook-timestamp": String(timestamp - 1) }, body],
      [
        "signature",
        // Its first character changed (to "B" where it already is "A": a replacement must differ).
        {
          ...headers,
          "webhook-signature": headers["webhook-signature"]!.replace(
            /^v1a,(.)/,
            (_, c) => `v1a,${c === "A" ? "B" : "A"}`,
          ),
        },
        body,
      ],
      ["version", { ...headers, "webhook-signature": headers["webhook-signature"]!.replace("v1a,", "v1,") }, body],
      ["missing signature", { "webhook-id": id, "webhook-timestamp": String(timestamp) }, body],
    ];
    for (const [, h, b] of cases) expect(verifyWebhookSignature({ headers: h, body: b, keys: jwks })).toBe(false);
    const other = generateKeyPairSync("ed25519").publicKey;
    expect(verifyWebhookSignature({ headers, body, keys: other })).toBe(false);
  });

  it("rejects a timestamp outside the tolerance (replay), and accepts one of several signatures", async () => {
    const key = await currentWebhookSigningKey();
    const jwks = await webhookKeysJwks();
    const old = Math.floor(Date.now() / 1000) - 600;
    const headers = webhookSignatureHeaders({ id, timestamp: old, body }, { secrets: [], keys: [key.privateKey] });
    expect(verifyWebhookSignature({ headers, body, keys: jwks })).toBe(false);
    expect(verifyWebhookSignature({ headers, body, keys: jwks, toleranceSeconds: 900 })).toBe(true);

    const now = Math.floor(Date.now() / 1000);
    const fresh = webhookSignatureHeaders({ id, timestamp: now, body }, { secrets: [], keys: [key.privateKey] });
    const rotated = { ...fresh, "webhook-signature": `v1a,${"A".repeat(86)}== ${fresh["webhook-signature"]}` };
    expect(verifyWebhookSignature({ headers: rotated, body, keys: jwks })).toBe(true);
  });
});

describe("the verifiers app developers already use", () => {
  it("standardwebhooks verifies v1 under the app's secret (and under each of two during a rotation)", async () => {
    const key = await currentWebhookSigningKey();
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(current.slice(6), "base64")).toHaveLength(24);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookSignatureHeaders(
      { id, timestamp, body },
      { secrets: [current, previous], keys: [key.privateKey] },
    );
    // v1 signatures first, then v1a: `v1,<new> v1,<old> v1a,<ed25519>`.
    expect(headers["webhook-signature"]).toMatch(
      /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}= v1a,[A-Za-z0-9+/]{86}==$/,
    );
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow(/No matching signature/);
    // Our own v1a verifier still finds its signature among the v1 ones.
    expect(verifyWebhookSignature({ headers, body, keys: await webhookKeysJwks() })).toBe(true);
  });

  it("for any JSON body, Standard Webhooks and our v1a verifier accept it as signed and refuse it with one character changed", async () => {
    const key = await currentWebhookSigningKey();
    const jwks = await webhookKeysJwks();
    const secret = newWebhookSecret();
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.constantFrom("a", "0", " ", '"', "é", "\\"), (json, at, char) => {
        const timestamp = Math.floor(Date.now() / 1000);
        const headers = webhookSignatureHeaders(
          { id, timestamp, body: json },
          { secrets: [secret], keys: [key.privateKey] },
        );
        expect(new Webhook(secret).verify(json, headers)).toEqual(JSON.parse(json));
        expect(verifyWebhookSignature({ headers, body: json, keys: jwks })).toBe(true);
        const edited = applyEdit(json, { kind: "replace", at, char });
        fc.pre(edited !== json);
        expect(() => new Webhook(secret).verify(edited, headers)).toThrow(/No matching signature/);
        expect(verifyWebhookSignature({ headers, body: edited, keys: jwks })).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("x-ghl-signature is Ed25519 over the body bytes alone: node:crypto and the platform's SDK verify it", async () => {
    const key = await currentWebhookSigningKey();
    const pem = await webhookPublicKeyPem();
    const headers = webhookSignatureHeaders(
      { id, timestamp: Math.floor(Date.now() / 1000), body },
      { secrets: [newWebhookSecret()], keys: [key.privateKey] },
    );
    const signature = Buffer.from(headers["x-ghl-signature"]!, "base64");
    expect(signature).toHaveLength(64);
    expect(verify(null, Buffer.from(body), createPublicKey(pem), signature)).toBe(true);
    expect(verify(null, Buffer.from(`${body} `), createPublicKey(pem), signature)).toBe(false);
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    const sdk = new WebhookManager(silent as never, {} as never, {} as never, {});
    expect(sdk.verifyEd25519Signature(Buffer.from(body), headers["x-ghl-signature"]!, pem)).toBe(true);
    expect(sdk.verifyEd25519Signature(body.replace("app_1", "app_2"), headers["x-ghl-signature"]!, pem)).toBe(false);
  });

  it("takes several keys: one v1a per key, x-ghl-signature under the first", () => {
    const [a, b] = [generateKeyPairSync("ed25519"), generateKeyPairSync("ed25519")];
    const headers = webhookSignatureHeaders(
      { id, timestamp: 1, body },
      { secrets: [], keys: [a.privateKey, b.privateKey] },
    );
    expect(headers["webhook-signature"]!.split(" ").map((s) => s.split(",")[0])).toEqual(["v1a", "v1a"]);
    expect(verify(null, Buffer.from(body), a.publicKey, Buffer.from(headers["x-ghl-signature"]!, "base64"))).toBe(true);
    expect(() => webhookSignatureHeaders({ id, timestamp: 1, body }, { secrets: [], keys: [] })).toThrow();
  });
});
