import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decrypt } from "@/lib/crypto/secrets";
import { databaseHandle, db } from "@/lib/db/client";
import { tableChangeMarker } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { holdKeyRotationLock } from "@/lib/testing/key-rotation-lock";
import { secondInstance } from "@/lib/testing/second-instance";
import { ACCESS_TOKEN_TTL_SECONDS } from "./access-token";
import {
  accessTokenJwks,
  activeSigningKey,
  ensureActiveKey,
  LONGEST_ACCESS_TOKEN_MS,
  newKeyRow,
  RETIRED_KEY_GRACE_MS,
  resetSigningKeyCache,
  rotateInDatabase,
  rotateSigningKey,
  rotationDue,
  verificationKey,
} from "./signing-keys";

const DAY_MS = 86_400_000;
/** Any key older than a millisecond is due: races a rotation without making the shared key due for everyone. */
const DUE_AT_ONCE_DAYS = 1 / DAY_MS;

let releaseLock: () => Promise<void>;
beforeAll(async () => {
  releaseLock = await holdKeyRotationLock();
});
afterAll(async () => {
  await releaseLock();
});

/** Makes the active key look `days` (and a minute) old, as if the clock had moved on. */
async function ageActiveKey(days: number): Promise<string> {
  const { kid } = await ensureActiveKey();
  await db().signingKey.update({ where: { kid }, data: { createdAt: new Date(Date.now() - days * DAY_MS - 60_000) } });
  return kid;
}

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

  it("rotation signs with a new kid and keeps the old key published until its last token expired", async () => {
    const before = await activeSigningKey();
    const now = new Date();
    const rotation = await rotateSigningKey(now);
    expect(rotation.previousKid).toBe(before.kid);
    const after = await activeSigningKey();
    expect(after.kid).toBe(rotation.kid);
    expect(after.kid).not.toBe(before.kid);
    const kids = (await accessTokenJwks(now)).keys.map((k) => k.kid);
    expect(kids).toContain(before.kid);
    expect(kids).toContain(rotation.kid);
    expect(await verificationKey(before.kid)).toBeDefined();
    // A token signed just before the rotation (or by an instance that had not heard of it within
    // one cache TTL) expires a day later: the key is still published then, and gone after the grace.
    const lastExpiry = new Date(now.getTime() + LONGEST_ACCESS_TOKEN_MS);
    expect((await accessTokenJwks(lastExpiry)).keys.map((k) => k.kid)).toContain(before.kid);
    const later = new Date(now.getTime() + RETIRED_KEY_GRACE_MS + 1000);
    expect((await accessTokenJwks(later)).keys.map((k) => k.kid)).not.toContain(before.kid);
  });

  it("the grace period outlives the longest access token", () => {
    expect(LONGEST_ACCESS_TOKEN_MS).toBe(ACCESS_TOKEN_TTL_SECONDS * 1000);
    expect(RETIRED_KEY_GRACE_MS).toBeGreaterThan(LONGEST_ACCESS_TOKEN_MS);
    expect(RETIRED_KEY_GRACE_MS).toBeLessThanOrEqual(LONGEST_ACCESS_TOKEN_MS + 10 * 60_000);
  });

  it("a rotation deletes the keys whose every token has expired, and keeps the others", async () => {
    const now = new Date();
    const expired = { ...(await newKeyRow(now)), retiredAt: new Date(now.getTime() - RETIRED_KEY_GRACE_MS - 1000) };
    const alive = { ...(await newKeyRow(now)), retiredAt: new Date(now.getTime() - RETIRED_KEY_GRACE_MS + 60_000) };
    await db().signingKey.createMany({ data: [expired, alive] });
    await rotateSigningKey(now);
    expect(await db().signingKey.findUnique({ where: { kid: expired.kid } })).toBeNull();
    expect(await db().signingKey.findUnique({ where: { kid: alive.kid } })).not.toBeNull();
  });

  it("is due after SIGNING_KEY_ROTATION_DAYS, never when that is 0", () => {
    const createdAt = new Date("2026-01-01T00:00:00Z");
    expect(env().SIGNING_KEY_ROTATION_DAYS).toBe(90);
    expect(rotationDue({ createdAt }, new Date("2026-03-31T23:59:59Z"))).toBe(false);
    expect(rotationDue({ createdAt }, new Date("2026-04-01T00:00:00Z"))).toBe(true);
    expect(rotationDue({ createdAt }, new Date("2026-01-02T00:00:00Z"), 1)).toBe(true);
    expect(rotationDue({ createdAt }, new Date("2030-01-01T00:00:00Z"), 0)).toBe(false);
  });

  it("rotates by itself when the signing key is due, once, however many tokens are being signed", async () => {
    const oldKid = await ageActiveKey(env().SIGNING_KEY_ROTATION_DAYS);
    resetSigningKeyCache();
    const keys = await Promise.all(Array.from({ length: 6 }, () => activeSigningKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect(keys[0]!.kid).not.toBe(oldKid);
    const old = await db().signingKey.findUniqueOrThrow({ where: { kid: oldKid } });
    expect(old.retiredAt).not.toBeNull();
    expect(await db().signingKey.count({ where: { use: "access_token", retiredAt: null } })).toBe(1);
    expect((await accessTokenJwks()).keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, keys[0]!.kid]));
  });

  it("the database rotates a due key once when callers race, and not at all when it is not due", async () => {
    await ensureActiveKey();
    const now = new Date();
    expect(await rotateInDatabase(db(), now, { onlyIfDue: true })).toBeUndefined();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => rotateInDatabase(db(), now, { onlyIfDue: true, rotationDays: DUE_AT_ONCE_DAYS })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("another instance's rotation reaches this one's cache through NOTIFY token_state", async () => {
    await vi.waitFor(() => expect(tableChangeMarker("SigningKey")).toBeDefined());
    // An earlier test's rotation may not have reached this process's cache yet: wait until the
    // cache and the database agree on the active key before rotating behind the cache's back.
    const activeInDatabase = async () =>
      (
        await db().signingKey.findFirst({
          where: { use: "access_token", retiredAt: null },
          orderBy: { createdAt: "desc" },
          select: { kid: true },
        })
      )?.kid;
    await vi.waitFor(async () => expect((await activeSigningKey()).kid).toBe(await activeInDatabase()));
    const before = await activeSigningKey();
    const marker = tableChangeMarker("SigningKey");
    // Rotated as another instance would: in the database, without touching this process's cache.
    const rotation = await rotateInDatabase(db(), new Date());
    expect(rotation?.previousKid).toBe(before.kid);
    await vi.waitFor(() => expect(tableChangeMarker("SigningKey")).not.toBe(marker));
    expect((await activeSigningKey()).kid).toBe(rotation?.kid);
  });

  it("another instance's new key is found by kid without waiting for the cache", async () => {
    await activeSigningKey();
    // Simulate another instance: rotate, then make this process forget nothing but the time.
    const { kid } = await rotateSigningKey();
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

// Two PrismaClients with pools of their own stand in for two app instances sharing PostgreSQL.
describe.runIf(databaseHandle().kind === "postgresql")("two instances on PostgreSQL", () => {
  const second = secondInstance();

  it("rotate a due key exactly once when both notice at the same moment", async () => {
    const { kid: oldKid } = await ensureActiveKey();
    const now = new Date();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rotateInDatabase(i % 2 ? second() : db(), now, { onlyIfDue: true, rotationDays: DUE_AT_ONCE_DAYS }),
      ),
    );
    const rotations = results.filter(Boolean);
    expect(rotations).toHaveLength(1);
    expect(rotations[0]?.previousKid).toBe(oldKid);
    const active = await second().signingKey.findMany({ where: { use: "access_token", retiredAt: null } });
    expect(active.map((k) => k.kid)).toEqual([rotations[0]?.kid]);
  });

  it("two operators rotating at once make two rotations in a row, never two signing keys", async () => {
    const [a, b] = await Promise.all([rotateInDatabase(db(), new Date()), rotateInDatabase(second(), new Date())]);
    expect(a?.kid).not.toBe(b?.kid);
    expect([a?.previousKid, b?.previousKid]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(a?.previousKid === b?.kid || b?.previousKid === a?.kid).toBe(true);
    expect(await db().signingKey.count({ where: { use: "access_token", retiredAt: null } })).toBe(1);
  });
});
