import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { appUrl, env } from "@/lib/env";
import { apiClient, operatorCommand } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { holdKeyRotationLock } from "@/lib/testing/key-rotation-lock";
import { codeGrant, install, makeApp } from "@/lib/testing/oauth";
import {
  activeSigningKey,
  LONGEST_ACCESS_TOKEN_MS,
  newKeyRow,
  RETIRED_KEY_GRACE_MS,
  resetSigningKeyCache,
} from "@/lib/tokens/signing-keys";

const api = apiClient(apiRoutes);

describe("GET /.well-known/jwks.json", () => {
  it("publishes the signing key's public JWK under its kid", async () => {
    const { kid } = await activeSigningKey();
    const result = await api.get("/.well-known/jwks.json");
    expect(result.status).toBe(200);
    const keys = result.body.keys as Record<string, string>[];
    expect(keys.find((k) => k.kid === kid)).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    for (const key of keys) expect(key).not.toHaveProperty("d");
  });
});

/**
 * Rotation through HTTP: the operator's command at POST /api/operator (what the CLI sends while a
 * server holds the embedded database), tokens from /oauth/token, checked at GET /locations/{id}.
 */
describe("access-token signing-key rotation through HTTP", () => {
  let agency: TestAgency;
  let app: CreatedApp;

  let releaseLock: () => Promise<void>;

  beforeAll(async () => {
    releaseLock = await holdKeyRotationLock();
    agency = await makeAgency({ locations: 1 });
    app = await makeApp(agency.company.id);
  });
  afterAll(async () => {
    await releaseLock();
  });

  async function issueToken(): Promise<string> {
    const { code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const result = await api.post("/oauth/token", { form: codeGrant(app, code, "Company"), version: null });
    expect(result.status).toBe(200);
    return String(result.body.access_token);
  }

  async function locationStatus(token: string): Promise<number> {
    return (await api.get(`/locations/${agency.locations[0]!.id}`, { token })).status;
  }

  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const publishedKids = async () => {
    const result = await api.get("/.well-known/jwks.json");
    return (result.body.keys as { kid: string }[]).map((k) => k.kid);
  };

  it("signing-key:rotate answers {kid, previousKid}; new tokens carry the new kid at once, old and new both work", async () => {
    const before = await issueToken();
    const rotated = await operatorCommand(api, "signing-key:rotate");
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ kid: expect.any(String), previousKid: kidOf(before) });
    const after = await issueToken();
    expect(kidOf(after)).toBe(rotated.body.kid);
    expect(await publishedKids()).toEqual(expect.arrayContaining([kidOf(before), kidOf(after)]));
    expect(await locationStatus(before)).toBe(200);
    expect(await locationStatus(after)).toBe(200);
  });

  it("signing-key:rotate takes no flags", async () => {
    const refused = await operatorCommand(api, "signing-key:rotate", { kid: "x" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: "invalid_request", error_description: "Unknown flag --kid." });
  });

  it(`rotates by itself once the signing key is SIGNING_KEY_ROTATION_DAYS (${env().SIGNING_KEY_ROTATION_DAYS}) old, at the next token`, async () => {
    const before = await issueToken();
    const oldKid = String(kidOf(before));
    const days = env().SIGNING_KEY_ROTATION_DAYS;
    // The key was made long ago (as if the clock had moved on); the trigger tells every cache.
    await db().signingKey.update({
      where: { kid: oldKid },
      data: { createdAt: new Date(Date.now() - (days * 86_400_000 + 60_000)) },
    });
    resetSigningKeyCache();
    const after = await Promise.all([issueToken(), issueToken(), issueToken()]);
    const newKids = new Set(after.map(kidOf));
    expect(newKids.size).toBe(1);
    expect(newKids.has(oldKid)).toBe(false);
    const old = await db().signingKey.findUniqueOrThrow({ where: { kid: oldKid } });
    expect(old.retiredAt).not.toBeNull();
    expect(await db().signingKey.count({ where: { use: "access_token", retiredAt: null } })).toBe(1);
    expect(await publishedKids()).toEqual(expect.arrayContaining([oldKid, ...newKids]));
    expect(await locationStatus(before)).toBe(200);
    for (const token of after) expect(await locationStatus(token)).toBe(200);
  });

  it("drops a retired key once every token it signed has expired, and keeps it until then", async () => {
    const now = Date.now();
    const expired = { ...(await newKeyRow(new Date(now))), retiredAt: new Date(now - RETIRED_KEY_GRACE_MS - 1000) };
    const alive = { ...(await newKeyRow(new Date(now))), retiredAt: new Date(now - LONGEST_ACCESS_TOKEN_MS) };
    await db().signingKey.createMany({ data: [expired, alive] });
    resetSigningKeyCache();
    const kids = await publishedKids();
    expect(kids).toContain(alive.kid);
    expect(kids).not.toContain(expired.kid);
  });

  it("the JWKS may be cached for five minutes, so clients see a new key within minutes", async () => {
    const result = await api.get("/.well-known/jwks.json");
    expect(result.headers.get("cache-control")).toBe("public, max-age=300");
  });
});

describe("GET /.well-known/oauth-authorization-server (RFC 8414)", () => {
  it("describes the endpoints, grants, client auth methods and PKCE", async () => {
    const result = await api.get("/.well-known/oauth-authorization-server");
    expect(result.status).toBe(200);
    const base = appUrl();
    expect(result.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/chooselocation`,
      token_endpoint: `${base}/oauth/token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES256", "RS256"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
      introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
      code_challenge_methods_supported: ["S256"],
    });
    expect(result.body.scopes_supported).toContain("contacts.write");
  });
});
