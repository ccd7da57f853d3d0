import fc from "fast-check";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";
import { applyEdit, textEdit } from "@/lib/testing/text-edits";
import { ACCESS_TOKEN_TTL_SECONDS, isCanonicalJwt, verifyAccessToken } from "./access-token";
import { accessTokenJwks, activeSigningKey, verificationKey } from "./signing-keys";

let agency: TestAgency;
let company: Awaited<ReturnType<typeof installAndExchange>>;
let location: Awaited<ReturnType<typeof installAndExchange>>;
let app: Awaited<ReturnType<typeof makeApp>>;

beforeAll(async () => {
  agency = await makeAgency({ locations: 2 });
  app = await makeApp(agency.company.id);
  company = await installAndExchange(agency.owner, app, {
    level: "agency",
    locationIds: agency.locations.map((l) => l.id),
  });
  const subUser = await makeUser(agency.company.id, "account_user", { locationIds: [agency.locations[0]!.id] });
  location = await installAndExchange(subUser, app, { level: "location", locationId: agency.locations[0]!.id });
});

describe("issueAccessToken claims (SPEC.md, Access tokens)", () => {
  it("a Company token has exactly the Company claims", async () => {
    const claims = decodeJwt(company.access_token);
    expect(Object.keys(claims).sort()).toEqual(
      [
        "iss",
        "sub",
        "jti",
        "iat",
        "exp",
        "client_id",
        "versionId",
        "authClass",
        "authClassId",
        "companyId",
        "scope",
      ].sort(),
    );
    expect(claims).toMatchObject({
      iss: appUrl(),
      sub: agency.owner.id,
      client_id: app.app.clientId,
      versionId: app.app.versionId,
      authClass: "Company",
      authClassId: agency.company.id,
      companyId: agency.company.id,
      scope: "oauth.readonly oauth.write locations.readonly users.readonly",
    });
    expect(claims.exp! - claims.iat!).toBe(ACCESS_TOKEN_TTL_SECONDS);
    const header = decodeProtectedHeader(company.access_token);
    expect(header).toMatchObject({ alg: "ES256", kid: expect.any(String) });
    // Published (another test file may have rotated since, on a shared PostgreSQL database).
    expect(await verificationKey(header.kid!)).toBeDefined();
    expect(await db().accessToken.findUnique({ where: { jti: claims.jti! } })).not.toBeNull();
  });

  it("is a compact ES256 JWS that jose verifies against the published JWKS, signature R‖S (RFC 7518 §3.4)", async () => {
    const jwks = createLocalJWKSet(await accessTokenJwks());
    const { payload, protectedHeader } = await jwtVerify(company.access_token, jwks, {
      algorithms: ["ES256"],
      issuer: appUrl(),
    });
    expect(protectedHeader).toEqual({ alg: "ES256", kid: expect.any(String), typ: "JWT" });
    expect(payload.sub).toBe(agency.owner.id);
    // 64 bytes: P-256's R and S, not a DER sequence.
    expect(Buffer.from(company.access_token.split(".")[2] as string, "base64url")).toHaveLength(64);
  });

  it("a Location token adds locationId and carries sub-account scopes", () => {
    const claims = decodeJwt(location.access_token);
    expect(claims).toMatchObject({
      authClass: "Location",
      authClassId: agency.locations[0]!.id,
      locationId: agency.locations[0]!.id,
      companyId: agency.company.id,
      scope: "locations.readonly users.readonly contacts.write",
    });
  });
});

describe("verifyAccessToken", () => {
  it("accepts a live token and returns its principal", async () => {
    const result = await verifyAccessToken(location.access_token);
    expect(result).toEqual({
      ok: true,
      principal: {
        kind: "access_token",
        authClass: "Location",
        companyId: agency.company.id,
        locationId: agency.locations[0]!.id,
        scopes: ["locations.readonly", "users.readonly", "contacts.write"],
        appId: app.app.id,
        // The installation whose usage the token's requests count (lib/usage).
        installationId: (
          await db().installation.findFirstOrThrow({
            where: { appId: app.app.id, locationId: agency.locations[0]!.id },
          })
        ).id,
        userId: expect.any(String),
        tokenId: decodeJwt(location.access_token).jti,
        expiresAt: expect.any(Date),
      },
    });
  });

  it.each([
    ["empty", ""],
    ["not a JWT", "abc"],
    ["garbage segments", "a.b.c"],
    ["a pit token", "pit-12345678-1234-1234-1234-123456789012"],
  ])("refuses %s as malformed", async (_name, token) => {
    expect(await verifyAccessToken(token)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a token signed with a key we did not publish", async () => {
    const { generateKeyPair } = await import("jose");
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT(decodeJwt(company.access_token))
      .setProtectedHeader({ alg: "ES256", kid: decodeProtectedHeader(company.access_token).kid! })
      .sign(privateKey);
    expect(await verifyAccessToken(forged)).toEqual({ ok: false, reason: "unknown" });
    const unknownKid = await new SignJWT(decodeJwt(company.access_token))
      .setProtectedHeader({ alg: "ES256", kid: "someone-elses" })
      .sign(privateKey);
    expect(await verifyAccessToken(unknownKid)).toEqual({ ok: false, reason: "unknown" });
  });

  it("refuses a token of another issuer and one whose jti we never recorded", async () => {
    const key = await activeSigningKey();
    const claims = decodeJwt(company.access_token);
    const otherIssuer = await new SignJWT({ ...claims, iss: "https://evil.example" })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .sign(key.privateKey);
    expect(await verifyAccessToken(otherIssuer)).toEqual({ ok: false, reason: "unknown" });
    const unrecorded = await new SignJWT({ ...claims, jti: "never-issued" })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .sign(key.privateKey);
    expect(await verifyAccessToken(unrecorded)).toEqual({ ok: false, reason: "unknown" });
  });

  it("accepts one spelling only: a signature with spare bits set in its last character is malformed (SPEC.md, edges)", async () => {
    const [h, p, s] = location.access_token.split(".") as [string, string, string];
    // 64 bytes are 86 characters: the last one carries 2 bits of data and 4 spare bits.
    expect(s).toHaveLength(86);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(s.at(-1) as string);
    const variant = `${h}.${p}.${s.slice(0, -1)}${alphabet[last | 0x01]}`;
    expect(Buffer.from(variant.split(".")[2] as string, "base64url")).toEqual(Buffer.from(s, "base64url"));
    expect(await verifyAccessToken(variant)).toEqual({ ok: false, reason: "malformed" });
    expect((await verifyAccessToken(location.access_token)).ok).toBe(true);
  });

  it.each([
    ["canonical parts of every length", "eyJh.eyJhYQ.YWI", true],
    ["spare bits in a 2-character tail (header)", "eyJhYR.eyJh.YWI", false],
    ["spare bits in a 3-character tail (payload)", "eyJh.YWJ.YWI", false],
    ["spare bits in the signature", "eyJh.eyJh.YWJ", false],
    ["an impossible length (4n+1)", "eyJh.eyJhY.YWI", false],
  ])("isCanonicalJwt: %s", (_name, token, expected) => {
    expect(isCanonicalJwt(token)).toBe(expected);
  });

  it("refuses every edit of an issued token: a character replaced, inserted or removed anywhere, or the token cut", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    const issued = fc.constantFrom(company.access_token, location.access_token);
    await fc.assert(
      fc.asyncProperty(issued, textEdit(alphabet), async (token, edit) => {
        const edited = applyEdit(token, edit);
        fc.pre(edited !== token);
        const result = await verifyAccessToken(edited);
        // A refusal that names no state of ours: the edit is not a token we issued.
        expect(result.ok ? "accepted" : result.reason).toMatch(/^(malformed|unknown)$/);
      }),
      { numRuns: 400 },
    );
    expect((await verifyAccessToken(company.access_token)).ok).toBe(true);
  });

  it("refuses a tampered payload", async () => {
    const [h, p, s] = company.access_token.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString());
    payload.scope = "locations.write";
    const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    expect(await verifyAccessToken(tampered)).toEqual({ ok: false, reason: "unknown" });
  });

  it("refuses an expired token (clock passed in)", async () => {
    const exp = decodeJwt(company.access_token).exp!;
    expect((await verifyAccessToken(company.access_token, new Date((exp - 1) * 1000))).ok).toBe(true);
    expect(await verifyAccessToken(company.access_token, new Date((exp + 1) * 1000))).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuses a revoked token, a token of a revoked grant and a token of an uninstalled app", async () => {
    const a = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[1]!.id] });
    const jti = decodeJwt(a.access_token).jti!;
    await db().accessToken.update({ where: { jti }, data: { revokedAt: new Date() } });
    expect(await verifyAccessToken(a.access_token)).toEqual({ ok: false, reason: "revoked" });

    const b = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[1]!.id] });
    const row = await db().accessToken.findUniqueOrThrow({ where: { jti: decodeJwt(b.access_token).jti! } });
    await db().tokenGrant.update({ where: { id: row.grantId }, data: { revokedAt: new Date() } });
    expect(await verifyAccessToken(b.access_token)).toEqual({ ok: false, reason: "revoked" });

    const c = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[1]!.id] });
    expect((await verifyAccessToken(c.access_token)).ok).toBe(true);
    const grant = await db().accessToken.findUniqueOrThrow({
      where: { jti: decodeJwt(c.access_token).jti! },
      select: { grant: { select: { installationId: true } } },
    });
    await uninstallApp({ installationId: grant.grant.installationId });
    expect(await verifyAccessToken(c.access_token)).toEqual({ ok: false, reason: "revoked" });
  });
});
