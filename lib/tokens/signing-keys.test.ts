import { decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { decrypt } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import {
  accessTokenJwks,
  activeSigningKey,
  ensureActiveKey,
  RETIRED_KEY_GRACE_MS,
  resetSigningKeyCache,
  rotateSigningKey,
  verificationKey,
} from "./signing-keys";

describe("access-token signing keys", () => {
  it("creates one ES256 key on first need, even when many callers ask at once", async () => {
    resetSigningKeyCache();
    const keys = await Promise.all(Array.from({ length: 8 }, () => activeSigningKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    const row = await db().signingKey.findUniqueOrThrow({ where: { kid: keys[0]!.kid } });
    expect(row).toMatchObject({ alg: "ES256", use: "access_token", retiredAt: null });
    expect(row.publicJwk).toMatchObject({ kty: "EC", crv: "P-256", kid: row.kid, alg: "ES256", use: "sig" });
    expect(row.publicJwk).not.toHaveProperty("d");
    // The private part is stored encrypted, never as plain JSON.
    expect(row.privateKeyEncrypted).not.toContain('"d"');
    expect(JSON.parse(decrypt(row.privateKeyEncrypted, "signing-key"))).toHaveProperty("d");
  });

  it("instances that find no key at once agree on one (advisory lock)", async () => {
    const rows = await Promise.all(Array.from({ length: 5 }, () => ensureActiveKey()));
    expect(new Set(rows.map((r) => r.kid)).size).toBe(1);
    expect(await db().signingKey.count({ where: { use: "access_token", retiredAt: null } })).toBe(1);
  });

  it("publishes a JWKS of public keys with their kid", async () => {
    const { kid } = await activeSigningKey();
    const jwks = await accessTokenJwks();
    const key = jwks.keys.find((k) => k.kid === kid);
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    for (const k of jwks.keys) expect(k).not.toHaveProperty("d");
  });

  it("rotation signs with a new kid and keeps the old key published for a day", async () => {
    const before = await activeSigningKey();
    const now = new Date();
    const newKid = await rotateSigningKey(now);
    const after = await activeSigningKey();
    expect(after.kid).toBe(newKid);
    expect(after.kid).not.toBe(before.kid);
    const kids = (await accessTokenJwks(now)).keys.map((k) => k.kid);
    expect(kids).toContain(before.kid);
    expect(kids).toContain(newKid);
    expect(await verificationKey(before.kid)).toBeDefined();
    const later = new Date(now.getTime() + RETIRED_KEY_GRACE_MS + 1000);
    expect((await accessTokenJwks(later)).keys.map((k) => k.kid)).not.toContain(before.kid);
  });

  it("another instance's new key is found by kid without waiting for the cache", async () => {
    await activeSigningKey();
    // Simulate another instance: rotate, then make this process forget nothing but the time.
    const kid = await rotateSigningKey();
    resetSigningKeyCache();
    expect((await verificationKey(kid))?.kid).toBe(kid);
    expect(await verificationKey("no-such-kid")).toBeUndefined();
  });

  it("a kid in a token header is what the JWKS publishes", async () => {
    const key = await activeSigningKey();
    const { SignJWT } = await import("jose");
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: key.kid }).sign(key.privateKey);
    expect(decodeProtectedHeader(jwt).kid).toBe(key.kid);
  });
});
