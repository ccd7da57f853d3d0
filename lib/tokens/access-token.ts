// Over 250 lines on purpose: an access token's life in one place: the claims, signing, the
// canonical-form checks and verification with its cache.
import { type KeyObject, randomUUID, sign } from "node:crypto";
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { cachedRead, cacheKey } from "@/lib/db/read-cache";
import { appUrl } from "@/lib/env";
import { isScope, type Scope } from "@/lib/scopes";
import type { Principal, VerifyResult } from "./principal";
import { type ActiveSigningKey, activeSigningKey, verificationKey } from "./signing-keys";

/** SPEC.md: expires_in 86399. */
export const ACCESS_TOKEN_TTL_SECONDS = 86_399;

export type AuthClass = "Company" | "Location";

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  client_id: string;
  versionId: string;
  authClass: AuthClass;
  authClassId: string;
  companyId: string;
  locationId?: string;
  scope: string;
}

export interface AccessTokenContent {
  userId: string;
  clientId: string;
  versionId: string;
  authClass: AuthClass;
  companyId: string;
  /** Location tokens only. */
  locationId?: string | null;
  scopes: readonly string[];
}

/** An access token about to be issued: its row (jti, expiry) is known before the token is signed. */
export interface AccessTokenRow {
  jti: string;
  iat: number;
  exp: number;
  expiresAt: Date;
}

export interface IssuedAccessToken {
  accessToken: string;
  jti: string;
  expiresAt: Date;
  expiresIn: number;
}

/**
 * The jti and expiry of a token issued at `now`. The grant writes this row in the statement that
 * issues (so the token exists exactly when the grant that issued it does) and signs the token
 * with `signAccessToken` once the statement has told what it carries.
 */
export function newAccessTokenRow(now: Date, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): AccessTokenRow {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  return { jti: randomUUID(), iat, exp, expiresAt: new Date(exp * 1000) };
}

/** Signs the ES256 access token of `row` with exactly SPEC.md's claims. */
export function signAccessToken(
  row: AccessTokenRow,
  content: AccessTokenContent,
  key: ActiveSigningKey,
): IssuedAccessToken {
  const { clientId: client_id, versionId, companyId, locationId } = content;
  const scope = content.scopes.join(" ");
  const iss = appUrl();
  const sub = content.userId;
  const { jti, iat, exp } = row;
  // Written out per type, in SPEC.md's order: one object shape each (spreads showed in a refresh's profile).
  let claims: AccessTokenClaims;
  if (content.authClass === "Location") {
    if (!locationId) throw new Error("A Location token needs a locationId.");
    const authClass = "Location";
    claims = {
      client_id,
      versionId,
      authClass,
      authClassId: locationId,
      companyId,
      locationId,
      scope,
      iss,
      sub,
      jti,
      iat,
      exp,
    };
  } else {
    const authClass = "Company";
    claims = { client_id, versionId, authClass, authClassId: companyId, companyId, scope, iss, sub, jti, iat, exp };
  }
  const accessToken = signCompact(encodedHeader(key), claims, key.privateKey);
  return { accessToken, jti: row.jti, expiresAt: row.expiresAt, expiresIn: exp - iat };
}

/**
 * An ES256 JWS in compact serialisation (RFC 7515 §7.1, RFC 7518 §3.4: the signature is R‖S,
 * not DER). node:crypto signs synchronously, in a fraction of the event-loop time jose's WebCrypto
 * path cost per token (bench-results.md › Figures the code rests on), once per grant. Verification
 * stays with jose (jwtVerify), whose answers are cached per token.
 */
function signCompact(encodedHeader: string, payload: AccessTokenClaims, privateKey: KeyObject): string {
  const input = `${encodedHeader}.${base64urlJson(payload)}`;
  const signature = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}

const base64urlJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A key's protected header, encoded once per key. */
const encodedHeaders = new WeakMap<ActiveSigningKey, string>();

function encodedHeader(key: ActiveSigningKey): string {
  let encoded = encodedHeaders.get(key);
  if (encoded === undefined) {
    encoded = base64urlJson({ alg: "ES256", kid: key.kid, typ: "JWT" });
    encodedHeaders.set(key, encoded);
  }
  return encoded;
}

/** Re-exported so callers that issue can fetch the key before their transaction. */
export { activeSigningKey };

interface TokenStateRow {
  tokenRevokedAt: Date | null;
  grantRevokedAt: Date | null;
  installationStatus: string;
  appId: string;
  installationId: string;
  /** The installation's current grant: a token never grants more (an applied removal narrows it). */
  installationScopes: string[];
}

/**
 * Whether a token, its grant and its installation are all still alive: one query over three
 * primary keys. The verification cache in front of it is emptied by every change of these rows.
 */
async function tokenState(jti: string): Promise<TokenStateRow | undefined> {
  const rows = await db().$queryRaw<TokenStateRow[]>`${PREPARED}
    SELECT a."revokedAt" AS "tokenRevokedAt", g."revokedAt" AS "grantRevokedAt", i."status"::text AS "installationStatus",
      g."appId" AS "appId", g."installationId" AS "installationId", i.scopes AS "installationScopes"
    FROM "AccessToken" a
    JOIN "TokenGrant" g ON g."id" = a."grantId"
    JOIN "Installation" i ON i."id" = g."installationId"
    WHERE a."jti" = ${jti}`;
  return rows[0];
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Whether a token has the shape of a JWT (three base64url parts); says nothing of its validity. */
export function isJwtShaped(token: string): boolean {
  return JWT_SHAPE.test(token);
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Whether every part of a JWT-shaped token is canonical base64url (RFC 4648 §3.5, unpadded): no
 * impossible length and no bits set past the last whole byte. jose decodes the signature leniently,
 * so without this one token would be accepted in several spellings (SPEC.md, The edges of the HTTP
 * server). Looks at one character per part: it runs on every request.
 */
export function isCanonicalJwt(token: string): boolean {
  let start = 0;
  while (start <= token.length) {
    let end = token.indexOf(".", start);
    if (end === -1) end = token.length;
    const remainder = (end - start) % 4;
    if (remainder === 1) return false;
    if (remainder !== 0) {
      // 2 characters carry one byte (4 spare bits), 3 carry two bytes (2 spare bits).
      const spareBits = remainder === 2 ? 0x0f : 0x03;
      if ((BASE64URL.indexOf(token.charAt(end - 1)) & spareBits) !== 0) return false;
    }
    start = end + 1;
  }
  return true;
}

/**
 * Verifies an access token: signature under one of our published keys, issuer, expiry, and that
 * neither the token, its grant nor its installation has been revoked or uninstalled. Its scopes
 * are those of the token that its installation still holds, so a scope removed by a new version
 * of the app stops working at once (the `Installation` scopes trigger empties the cache). A success
 * for these exact bytes may come from the verification cache (emptied by every revocation); the
 * expiry is checked against `now` on every call.
 */
export async function verifyAccessToken(token: string, now: Date = new Date()): Promise<VerifyResult> {
  if (token.length > 8192 || !isJwtShaped(token) || !isCanonicalJwt(token)) return { ok: false, reason: "malformed" };
  const result = await cachedRead(
    cacheKey("jwt", token),
    () => verifyWithDatabase(token, now),
    (r) => r.ok,
  );
  if (!result.ok) return result;
  if (result.principal.expiresAt && result.principal.expiresAt.getTime() <= now.getTime()) {
    return { ok: false, reason: "expired" };
  }
  return { ok: true, principal: { ...result.principal, scopes: [...result.principal.scopes] } };
}

async function verifyWithDatabase(token: string, now: Date): Promise<VerifyResult> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== "ES256" || typeof header.kid !== "string") return { ok: false, reason: "malformed" };
    kid = header.kid;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const key = await verificationKey(kid);
  if (!key) return { ok: false, reason: "unknown" };
  let claims: AccessTokenClaims;
  try {
    const verified = await jwtVerify(token, key.key, {
      algorithms: ["ES256"],
      issuer: appUrl(),
      currentDate: now,
      clockTolerance: 0,
      requiredClaims: ["sub", "jti", "iat", "exp"],
    });
    claims = verified.payload as unknown as AccessTokenClaims;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: "expired" };
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) return { ok: false, reason: "unknown" };
    if (error instanceof joseErrors.JWTClaimValidationFailed) return { ok: false, reason: "unknown" };
    return { ok: false, reason: "malformed" };
  }
  if (!wellFormed(claims)) return { ok: false, reason: "malformed" };
  const state = await tokenState(claims.jti);
  if (!state) return { ok: false, reason: "unknown" };
  if (state.tokenRevokedAt || state.grantRevokedAt || state.installationStatus !== "installed") {
    return { ok: false, reason: "revoked" };
  }
  return { ok: true, principal: toPrincipal(claims, state.appId, state.installationId, state.installationScopes) };
}

function wellFormed(claims: AccessTokenClaims): boolean {
  const str = (v: unknown) => typeof v === "string" && v.length > 0;
  if (!str(claims.jti) || !str(claims.sub) || !str(claims.client_id) || !str(claims.companyId)) return false;
  if (claims.authClass !== "Company" && claims.authClass !== "Location") return false;
  if (claims.authClass === "Location" && !str(claims.locationId)) return false;
  return typeof claims.scope === "string";
}

/**
 * `appId` is the App row's id (the token itself carries the client_id). The scopes are the token's
 * intersected with the installation's current ones (SPEC.md › Apps that grow without reinstalls).
 */
function toPrincipal(
  claims: AccessTokenClaims,
  appId: string,
  installationId: string,
  installationScopes: readonly string[],
): Principal {
  const held = new Set(installationScopes);
  const scopes = claims.scope.split(" ").filter((s): s is Scope => isScope(s) && held.has(s));
  return {
    kind: "access_token",
    authClass: claims.authClass,
    companyId: claims.companyId,
    ...(claims.authClass === "Location" ? { locationId: claims.locationId } : {}),
    scopes,
    appId,
    installationId,
    userId: claims.sub,
    tokenId: claims.jti,
    expiresAt: new Date(claims.exp * 1000),
  };
}
