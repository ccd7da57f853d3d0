// Over 250 lines on purpose: one test per refusal of a pasted key, the properties over every JWK shape, and the screen's actions, sharing one app.
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { promises as dnsPromises, type LookupAddress } from "node:dns";
import fc from "fast-check";
import {
  calculateJwkThumbprint,
  exportJWK,
  importJWK,
  importPKCS8,
  type JWK,
  generateKeyPair as joseKeyPair,
  jwtVerify,
  SignJWT,
} from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { Refusal } from "@/lib/refusal";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";
import { makeApp } from "@/lib/testing/oauth";
import { refusal } from "@/lib/testing/refusal";
import {
  addPublicKey,
  generateKeyPair,
  listAppKeys,
  MAX_APP_KEYS,
  readPublicJwk,
  removeAppKey,
  type StoredPublicJwk,
  setJwksUrl,
} from "./keys";

// The screen's server actions run outside Next.js here: the session and the cache are stand-ins.
const session = vi.hoisted(() => ({ actor: null as Actor | null }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () => (session.actor ? signedInAs(session.actor) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
const actions = await import("@/app/(admin)/developer/apps/actions");

/**
 * SPEC.md › Apps that never lose an install › App keys: what a developer may add (a public JWK,
 * a generated pair, a JWKS URL), every refusal said beside its field, and who may change them.
 */

let agency: TestAgency;
let other: TestAgency;
let ecPublic: JWK;
let rsaPublic: JWK;

beforeAll(async () => {
  [agency, other] = await Promise.all([makeAgency({ locations: 1 }), makeAgency({ locations: 0 })]);
  const ec = await joseKeyPair("ES256", { extractable: true });
  const rsa = await joseKeyPair("RS256", { extractable: true, modulusLength: 2048 });
  ecPublic = await exportJWK(ec.publicKey);
  rsaPublic = await exportJWK(rsa.publicKey);
});

afterEach(() => {
  vi.restoreAllMocks();
  process.env.WEBHOOK_ALLOW_PRIVATE = "1";
  resetEnvCache();
});

const newAppId = async () => (await makeApp(agency.company.id)).app.id;
const text = (jwk: object) => JSON.stringify(jwk);

async function refusedJwk(jwkText: string): Promise<Refusal> {
  const error = await refusal(readPublicJwk(jwkText));
  expect(error.kind).toBe("invalid");
  expect(error.field).toBe("jwk");
  expect(error.message).toMatch(/^[A-Z"].+\.$/);
  return error;
}

describe("readPublicJwk: only a public EC P-256 or RSA (2048+ bits) signing key", () => {
  it("keeps only the public members, with the key's own kid and its alg", async () => {
    const ec = await readPublicJwk(text({ ...ecPublic, kid: "key-1", use: "sig", ext: true, x5t: "abc" }));
    expect(ec).toEqual({ kty: "EC", crv: "P-256", x: ecPublic.x, y: ecPublic.y, kid: "key-1", alg: "ES256" });
    const rsa = await readPublicJwk(text({ ...rsaPublic, alg: "RS256", key_ops: ["verify"] }));
    expect(rsa).toEqual({
      kty: "RSA",
      n: rsaPublic.n,
      e: rsaPublic.e,
      kid: await calculateJwkThumbprint(rsaPublic),
      alg: "RS256",
    });
  });

  it("names a key without kid by its RFC 7638 thumbprint", async () => {
    const ec = await readPublicJwk(`  ${text(ecPublic)}\n`);
    expect(ec.kid).toBe(await calculateJwkThumbprint(ecPublic, "sha256"));
    expect(ec.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each(["d", "p", "q", "dp", "dq", "qi", "k"])('refuses a key with the private member "%s"', async (member) => {
    const error = await refusedJwk(text({ ...ecPublic, [member]: "AQAB" }));
    expect(error.message).toMatch(/private|secret/);
    expect(error.message).toContain(`"${member}"`);
  });

  it.each([
    ["empty", "  ", /Paste the public key/],
    ["not JSON", "kty: EC", /not JSON/],
    ["a JSON array", "[]", /one JWK/],
    ["a string", '"EC"', /one JWK/],
    ["a PEM private key", "-----BEGIN PRIVATE KEY-----\nMIGHAgEA\n-----END PRIVATE KEY-----", /private key/],
    ["a PEM public key", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", /PEM.*JWK/],
    ["a key set", '{"keys":[]}', /key set \(JWKS\)/],
    ["a symmetric key", '{"kty":"oct","k":"c2VjcmV0"}', /secret \(symmetric\)/],
    ["a symmetric key without k", '{"kty":"oct"}', /symmetric \(oct\)/],
    ["an Ed25519 key", '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}', /OKP/],
    ["no kty", '{"x":"a"}', /no "kty"/],
    ["a too long text", " ".repeat(10) + "x".repeat(20_001), /too long/],
  ])("refuses %s", async (_case, input, message) => {
    expect((await refusedJwk(input)).message).toMatch(message);
  });

  it.each([
    ["P-384", { crv: "P-384" }, /P-384.*P-256/],
    ["secp256k1", { crv: "secp256k1" }, /secp256k1/],
    ["ES384 on a P-256 key", { alg: "ES384" }, /ES384.*ES256/],
    ["RS256 on an EC key", { alg: "RS256" }, /RS256/],
    ["use enc", { use: "enc" }, /"enc".*"use":"sig"/],
    ["key_ops without verify", { key_ops: ["encrypt"] }, /key_ops/],
    ["padded base64url", { x: `${"A".repeat(43)}=` }, /"x" is not base64url/],
    ["standard base64", { y: `${"A".repeat(42)}+` }, /"y" is not base64url/],
    ["a short x", { x: "AAAA" }, /"x" must be 32 bytes/],
    ["no y", { y: undefined }, /no "y"/],
    ["a point off the curve", { x: "A".repeat(43), y: "A".repeat(43) }, /not a point on the curve/],
    ["an empty kid", { kid: "" }, /"kid" must be a non-empty string/],
    ["a kid of 201 characters", { kid: "k".repeat(201) }, /at most 200/],
    ["a kid with a line break", { kid: "a\nb" }, /printable/],
    ["a kid that is a number", { kid: 7 }, /"kid" must be/],
  ])("refuses an EC key with %s", async (_case, change, message) => {
    expect((await refusedJwk(text({ ...ecPublic, ...change }))).message).toMatch(message);
  });

  it("accepts a kid of 200 printable characters", async () => {
    const kid = `${"k".repeat(190)} !~09AZaz`;
    expect((await readPublicJwk(text({ ...ecPublic, kid }))).kid).toBe(kid);
  });

  it.each([
    ["PS256", { alg: "PS256" }, /PS256.*RS256/],
    ["a 1024-bit modulus", { n: createRsaN(1024) }, /1024 bits.*at least 2048/],
    ["a 2047-bit modulus", { n: createRsaN(2047) }, /2047 bits/],
    ["a 9000-bit modulus", { n: createRsaN(9000) }, /at most 8192/],
    ["an even exponent", { e: "Ag" }, /"e" is not a usable/],
    ["malformed n", { n: "not base64!" }, /"n" is not base64url/],
  ])("refuses an RSA key with %s", async (_case, change, message) => {
    expect((await refusedJwk(text({ ...rsaPublic, ...change }))).message).toMatch(message);
  });

  it("refuses a real 1024-bit key and accepts a real 3072-bit one", async () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "jwk" });
    expect((await refusedJwk(text(small))).message).toMatch(/1024 bits/);
    const large = generateKeyPairSync("rsa", { modulusLength: 3072 }).publicKey.export({ format: "jwk" });
    expect((await readPublicJwk(text(large))).alg).toBe("RS256");
  });
});

/** A base64url big-endian number of exactly `bits` bits (odd, top bit set). */
function createRsaN(bits: number): string {
  const bytes = Buffer.alloc(Math.ceil(bits / 8), 0xab);
  const top = (bits - 1) % 8;
  bytes[0] = (1 << top) | ((1 << top) - 1);
  bytes[bytes.length - 1]! |= 1;
  return bytes.toString("base64url");
}

describe("readPublicJwk, properties", () => {
  const jsonValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
  const base = () => fc.constantFrom(ecPublic, rsaPublic, { kty: "oct" }, { kty: "OKP", crv: "Ed25519" });

  it("refuses every JWK holding a private member, whatever else it holds", async () => {
    const members = fc.subarray(["d", "p", "q", "dp", "dq", "qi", "k", "oth"], { minLength: 1 });
    await fc.assert(
      fc.asyncProperty(
        base(),
        members,
        jsonValue,
        fc.dictionary(fc.constantFrom("kid", "alg", "use", "ext", "x5c"), jsonValue),
        async (jwk, names, value, extra) => {
          const withPrivate = { ...extra, ...jwk, ...Object.fromEntries(names.map((n) => [n, value])) };
          const error = await readPublicJwk(text(withPrivate)).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(Refusal);
          expect((error as Refusal).message).toMatch(/private|secret/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses every key of a wrong kind: another kty, curve, alg or use", async () => {
    const wrong = fc.oneof(
      fc.record({ kty: fc.string().filter((k) => k !== "EC" && k !== "RSA") }),
      fc.record({ kty: fc.constantFrom(1, null, true, ["EC"]) }),
      fc.record({ crv: fc.string().filter((c) => c !== "P-256") }),
      fc.record({ alg: fc.string().filter((a) => a !== "ES256" && a !== "RS256") }),
      fc.record({ use: fc.string().filter((u) => u !== "sig") }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(ecPublic, rsaPublic), wrong, async (jwk, change) => {
        // A curve says nothing on an RSA key: only EC keys get one.
        if ("crv" in change && jwk.kty === "RSA") return;
        await expect(readPublicJwk(text({ ...jwk, ...change }))).rejects.toBeInstanceOf(Refusal);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses any member that is not base64url", async () => {
    const notBase64url = fc.string({ minLength: 1 }).filter((s) => !/^[A-Za-z0-9_-]+$/.test(s));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("x", "y"), notBase64url, async (member, value) => {
        const error = await refusedJwk(text({ ...ecPublic, [member]: value }));
        expect(error.message).toContain(`"${member}" is not base64url`);
      }),
      { numRuns: 200 },
    );
  });

  it("reads back the public half of any generated pair as it is", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("ES256", "ES256", "ES256", "RS256"), async (alg) => {
        const pair = await joseKeyPair(alg, { extractable: true });
        const jwk = await exportJWK(pair.publicKey);
        const read = await readPublicJwk(text(jwk));
        expect(read).toMatchObject(jwk);
        expect(read.kid).toBe(await calculateJwkThumbprint(jwk));
        expect(await readPublicJwk(text(read))).toEqual(read);
      }),
      { numRuns: 12 },
    );
  });
});

describe("addPublicKey", () => {
  it("stores the public key, lists it and writes the audit entry", async () => {
    const appId = await newAppId();
    const key = await addPublicKey(appId, text({ ...ecPublic, kid: "primary" }), agency.owner);
    expect(key).toMatchObject({ source: "public_key", kid: "primary", alg: "ES256", lastUsedAt: null, jwksUrl: null });
    const row = await db().appKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.publicJwk).toEqual({
      kty: "EC",
      crv: "P-256",
      x: ecPublic.x,
      y: ecPublic.y,
      kid: "primary",
      alg: "ES256",
    });
    expect(await listAppKeys(appId, agency.owner)).toEqual([key]);
    const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: appId, action: "app_key_added" } });
    expect(audit).toMatchObject({ actorUserId: agency.owner.id, companyId: agency.company.id });
    expect(audit.details).toMatchObject({ kid: "primary", source: "public_key", alg: "ES256" });
  });

  it("refuses a kid the app already has, naming it, and the same key under another kid", async () => {
    const appId = await newAppId();
    await addPublicKey(appId, text({ ...ecPublic, kid: "taken" }), agency.owner);
    const again = await refusal(addPublicKey(appId, text({ ...rsaPublic, kid: "taken" }), agency.owner));
    expect(again).toMatchObject({ kind: "conflict", field: "jwk" });
    expect(again.message).toMatch(/already has a key with kid "taken"/);
    const same = await refusal(addPublicKey(appId, text({ ...ecPublic, kid: "other" }), agency.owner));
    expect(same.message).toMatch(/already on the app, as kid "taken"/);
    // Another app may hold the same kid.
    await addPublicKey(await newAppId(), text({ ...ecPublic, kid: "taken" }), agency.owner);
  });

  it(`holds at most ${MAX_APP_KEYS} keys; a JWKS URL does not count`, async () => {
    const appId = await newAppId();
    await setJwksUrl(appId, "https://keys.example.test/jwks.json", agency.owner);
    for (let i = 0; i < MAX_APP_KEYS; i++) {
      const pair = await joseKeyPair("ES256", { extractable: true });
      await addPublicKey(appId, text(await exportJWK(pair.publicKey)), agency.owner);
    }
    const pair = await joseKeyPair("ES256", { extractable: true });
    const error = await refusal(addPublicKey(appId, text(await exportJWK(pair.publicKey)), agency.owner));
    expect(error).toMatchObject({ kind: "invalid", field: "jwk" });
    expect(error.message).toMatch(/at most 10 keys/);
    expect((await refusal(generateKeyPair(appId, "ES256", agency.owner))).field).toBe("alg");
    expect(await db().appKey.count({ where: { appId } })).toBe(MAX_APP_KEYS + 1);
  });

  it("refuses a bad key before touching the app", async () => {
    const appId = await newAppId();
    await refusal(addPublicKey(appId, text({ ...ecPublic, d: "AQAB" }), agency.owner));
    expect(await db().appKey.count({ where: { appId } })).toBe(0);
  });
});

describe("generateKeyPair", () => {
  it.each(["ES256", "RS256"] as const)(
    "%s: the private key is handed back once; a JWT it signs verifies with the stored public key",
    async (alg) => {
      const appId = await newAppId();
      const { key, privateKeyPem } = await generateKeyPair(appId, alg, agency.owner);
      expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n?$/);
      expect(key).toMatchObject({ source: "generated", alg });
      const row = await db().appKey.findUniqueOrThrow({ where: { id: key.id } });
      const stored = row.publicJwk as StoredPublicJwk;
      // Only the public half is kept: its members, kid and alg, and nothing of the PEM.
      expect(Object.keys(stored).sort()).toEqual(
        alg === "ES256" ? ["alg", "crv", "kid", "kty", "x", "y"] : ["alg", "e", "kid", "kty", "n"],
      );
      expect(JSON.stringify(row)).not.toContain(privateKeyPem.split("\n")[1]!.slice(0, 40));
      // The public half of the PEM is the stored key, and its thumbprint is the kid.
      const derived = createPublicKey(privateKeyPem).export({ format: "jwk" }) as JWK;
      expect(stored).toMatchObject(derived);
      expect(key.kid).toBe(await calculateJwkThumbprint(derived));

      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg, kid: key.kid! })
        .setIssuer("client")
        .setSubject("client")
        .setAudience("https://example.test/oauth/token")
        .setExpirationTime("5m")
        .sign(await importPKCS8(privateKeyPem, alg));
      const verified = await jwtVerify(assertion, await importJWK(stored, alg), {
        issuer: "client",
        audience: "https://example.test/oauth/token",
      });
      expect(verified.protectedHeader.kid).toBe(key.kid);
      const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: appId, action: "app_key_added" } });
      expect(audit.details).toMatchObject({ source: "generated", alg, kid: key.kid });
      expect(JSON.stringify(audit.details)).not.toContain("PRIVATE");
    },
  );

  it("makes ES256 by default and refuses another algorithm", async () => {
    const appId = await newAppId();
    expect((await generateKeyPair(appId)).key.alg).toBe("ES256");
    const error = await refusal(generateKeyPair(appId, "HS256" as never, agency.owner));
    expect(error).toMatchObject({ kind: "invalid", field: "alg" });
  });
});

describe("setJwksUrl", () => {
  const dnsAnswers: Record<string, string[]> = {
    "keys.public.example": ["93.184.215.14"],
    "keys.internal.example": ["10.0.0.8"],
  };
  function privateRefused() {
    process.env.WEBHOOK_ALLOW_PRIVATE = "0";
    resetEnvCache();
    vi.spyOn(dnsPromises, "lookup").mockImplementation((async (host: string): Promise<LookupAddress[]> => {
      const answer = dnsAnswers[host];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return answer.map((address) => ({ address, family: 4 }));
    }) as unknown as typeof dnsPromises.lookup);
  }

  it("keeps one JWKS URL per app: saving another replaces it, audited with the one it replaced", async () => {
    const appId = await newAppId();
    const first = await setJwksUrl(appId, " https://keys.example.test/jwks.json ", agency.owner);
    expect(first).toMatchObject({ source: "jwks_url", jwksUrl: "https://keys.example.test/jwks.json", kid: null });
    const second = await setJwksUrl(appId, "https://keys.example.test/v2/jwks.json", agency.owner);
    const rows = await db().appKey.findMany({ where: { appId } });
    expect(rows.map((r) => [r.id, r.jwksUrl])).toEqual([[second.id, "https://keys.example.test/v2/jwks.json"]]);
    const audits = await db().auditLog.findMany({
      where: { targetId: appId, action: "app_jwks_url_set" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    expect(audits.map((a) => a.details)).toEqual([
      expect.objectContaining({ jwksUrl: "https://keys.example.test/jwks.json", replaced: null }),
      expect.objectContaining({
        jwksUrl: "https://keys.example.test/v2/jwks.json",
        replaced: "https://keys.example.test/jwks.json",
      }),
    ]);
  });

  it.each([
    ["nothing", "", /Enter the JWKS URL/],
    ["a relative URL", "/jwks.json", /absolute URL/],
    ["ftp", "ftp://keys.example.test/jwks.json", /https/],
    ["a user name", "https://u:p@keys.example.test/jwks.json", /user name/],
    ["a fragment", "https://keys.example.test/jwks.json#k", /fragment/],
    ["a too long URL", `https://keys.example.test/${"a".repeat(2000)}`, /at most 2000/],
  ])("refuses %s", async (_case, url, message) => {
    const error = await refusal(setJwksUrl(await newAppId(), url, agency.owner));
    expect(error).toMatchObject({ kind: "invalid", field: "jwksUrl" });
    expect(error.message).toMatch(message);
  });

  it.each([
    ["plain http", "http://keys.public.example/jwks.json", /https/],
    ["a loopback address", "https://127.0.0.1/jwks.json", /JWKS URL: 127\.0\.0\.1 is a loopback address/],
    ["localhost", "https://localhost:8443/jwks.json", /loopback/],
    ["a private address", "https://10.1.2.3/jwks.json", /a private address; keys are fetched only from public/],
    ["the metadata service", "https://169.254.169.254/jwks", /link-local/],
    [
      "a host resolving to a private address",
      "https://keys.internal.example/jwks.json",
      /resolves to a loopback, private/,
    ],
    ["a host that does not resolve", "https://nowhere.invalid/jwks.json", /could not be resolved/],
  ])("refuses %s unless WEBHOOK_ALLOW_PRIVATE=1", async (_case, url, message) => {
    privateRefused();
    const appId = await newAppId();
    const error = await refusal(setJwksUrl(appId, url, agency.owner));
    expect(error).toMatchObject({ kind: "invalid", field: "jwksUrl" });
    expect(error.message).toMatch(message);
    expect(await db().appKey.count({ where: { appId } })).toBe(0);
  });

  it("accepts a public host; with WEBHOOK_ALLOW_PRIVATE=1 plain http and loopback too (tests)", async () => {
    privateRefused();
    const appId = await newAppId();
    await setJwksUrl(appId, "https://keys.public.example/.well-known/jwks.json", agency.owner);
    process.env.WEBHOOK_ALLOW_PRIVATE = "1";
    resetEnvCache();
    const local = await setJwksUrl(appId, "http://127.0.0.1:4010/jwks.json", agency.owner);
    expect(local.jwksUrl).toBe("http://127.0.0.1:4010/jwks.json");
  });
});

describe("removeAppKey", () => {
  it("removes a key or the JWKS URL at once, audited; a second Remove is refused", async () => {
    const appId = await newAppId();
    const key = await addPublicKey(appId, text(rsaPublic), agency.owner);
    const url = await setJwksUrl(appId, "https://keys.example.test/jwks.json", agency.owner);
    await removeAppKey(appId, key.id, agency.owner);
    expect((await listAppKeys(appId, agency.owner)).map((k) => k.id)).toEqual([url.id]);
    await removeAppKey(appId, url.id, agency.owner);
    expect(await listAppKeys(appId, agency.owner)).toEqual([]);
    const audits = await db().auditLog.findMany({
      where: { targetId: appId, action: "app_key_removed" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    expect(audits.map((a) => a.details)).toEqual([
      expect.objectContaining({ keyId: key.id, kid: key.kid, source: "public_key" }),
      expect.objectContaining({ keyId: url.id, jwksUrl: "https://keys.example.test/jwks.json", source: "jwks_url" }),
    ]);
    expect((await refusal(removeAppKey(appId, key.id, agency.owner))).kind).toBe("not_found");
    // A key is free to come back once removed.
    await addPublicKey(appId, text(rsaPublic), agency.owner);
  });

  it("never removes another app's key through this app", async () => {
    const appId = await newAppId();
    const otherApp = await newAppId();
    const key = await addPublicKey(otherApp, text(ecPublic), agency.owner);
    expect((await refusal(removeAppKey(appId, key.id, agency.owner))).kind).toBe("not_found");
    expect(await db().appKey.count({ where: { id: key.id } })).toBe(1);
  });
});

describe("who may change an app's keys", () => {
  let appId: string;
  let keyId: string;
  const changes = (actor: Actor): [string, () => Promise<unknown>][] => [
    ["addPublicKey", () => addPublicKey(appId, text(rsaPublic), actor)],
    ["generateKeyPair", () => generateKeyPair(appId, "ES256", actor)],
    ["setJwksUrl", () => setJwksUrl(appId, "https://keys.example.test/taken-over.json", actor)],
    ["listAppKeys", () => listAppKeys(appId, actor)],
    ["removeAppKey", () => removeAppKey(appId, keyId, actor)],
  ];

  beforeAll(async () => {
    appId = await newAppId();
    keyId = (await addPublicKey(appId, text(ecPublic), agency.owner)).id;
  });

  async function refusedAll(actor: Actor, kind: string) {
    const before = await db().appKey.findMany({ where: { appId }, orderBy: { id: "asc" } });
    for (const [name, change] of changes(actor)) {
      const error = await change().catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(Refusal);
      expect((error as Refusal).kind, name).toBe(kind);
    }
    expect(await db().appKey.findMany({ where: { appId }, orderBy: { id: "asc" } })).toEqual(before);
  }

  it("refuses an owner of another agency, as if the app did not exist", async () => {
    await refusedAll(other.owner, "not_found");
  });

  it("refuses a member of the app's agency who is not an owner or admin", async () => {
    await refusedAll(await makeUser(agency.company.id, "agency_user"), "forbidden");
  });

  it("refuses a sub-account admin of the app's agency", async () => {
    const subAccountAdmin = await makeUser(agency.company.id, "account_admin", {
      locationIds: [agency.locations[0]!.id],
    });
    await refusedAll(subAccountAdmin, "forbidden");
  });

  it("lets an agency admin change them", async () => {
    const admin = await makeUser(agency.company.id, "agency_admin");
    const { key } = await generateKeyPair(appId, "ES256", admin);
    expect((await listAppKeys(appId, admin)).map((k) => k.id)).toContain(key.id);
    await removeAppKey(appId, key.id, admin);
  });
});

describe("the screen's actions", () => {
  it("say each refusal beside its field and keep what was typed; nothing is a server error", async () => {
    session.actor = agency.owner;
    const appId = await newAppId();
    const privateJwk = text({ ...ecPublic, d: "AQAB" });
    expect(await actions.addAppKeyAction({}, formData({ appId, jwk: privateJwk }))).toEqual({
      fieldErrors: { jwk: expect.stringMatching(/^This is a private key/) },
      values: { appId, jwk: privateJwk },
    });
    expect(await actions.addAppKeyAction({}, formData({ appId, jwk: "{" }))).toMatchObject({
      fieldErrors: { jwk: expect.stringMatching(/not JSON/) },
    });
    expect(await actions.setJwksUrlAction({}, formData({ appId, jwksUrl: "ftp://x.example/jwks" }))).toMatchObject({
      fieldErrors: { jwksUrl: expect.stringMatching(/https/) },
      values: { jwksUrl: "ftp://x.example/jwks" },
    });
    expect(await actions.generateAppKeyPairAction({}, formData({ appId, alg: "HS256" }))).toMatchObject({
      fieldErrors: { alg: "Choose ES256 or RS256." },
    });
    expect(await actions.removeAppKeyAction({}, formData({ appId, keyId: "no-such-key" }))).toEqual({
      error: expect.stringMatching(/no longer on the app/),
      values: { appId, keyId: "no-such-key" },
    });
    expect(await actions.addAppKeyAction({}, formData({ jwk: text(ecPublic) }))).toEqual({
      error: "The form could not be read. Reload the page.",
    });
    expect(await db().appKey.count({ where: { appId } })).toBe(0);
  });

  it("add, generate (the private key in the answer once), save a JWKS URL and remove", async () => {
    session.actor = agency.owner;
    const appId = await newAppId();
    const added = await actions.addAppKeyAction({}, formData({ appId, jwk: text({ ...ecPublic, kid: "screen" }) }));
    expect(added).toMatchObject({ ok: true, message: "The key screen is added." });
    const generated = await actions.generateAppKeyPairAction({}, formData({ appId, alg: "RS256" }));
    expect(generated).toMatchObject({
      ok: true,
      data: { alg: "RS256", privateKeyPem: expect.stringContaining("-----BEGIN PRIVATE KEY-----") },
    });
    const saved = await actions.setJwksUrlAction(
      {},
      formData({ appId, jwksUrl: "https://keys.example.test/jwks.json" }),
    );
    expect(saved).toMatchObject({ ok: true, message: "The JWKS URL is saved." });
    const keyId = String(added.data?.keyId);
    expect(await actions.removeAppKeyAction({}, formData({ appId, keyId }))).toEqual({
      ok: true,
      message: "The key screen is removed.",
    });
    expect((await listAppKeys(appId, agency.owner)).map((k) => k.source)).toEqual(["generated", "jwks_url"]);
  });
});
