// Over 250 lines on purpose: private_key_jwt's checks in the order they run, each refusal's words beside its check, and the one statement that consumes a jti.
import {
  type CryptoKey,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
  type KeyObject,
} from "jose";
import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { cachedRead } from "@/lib/db/read-cache";
import { appUrl } from "@/lib/env";
import { isCanonicalJwt, isJwtShaped } from "@/lib/tokens/access-token";
import { findAppByClientId } from "./client-lookup";
import { invalidClient, invalidRequest } from "./errors";
import { sqlTime } from "./grants/issue";
import { jwksFor } from "./jwks-fetch";

/**
 * `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): the client authenticates with a JWT it
 * signed with one of its app's keys (lib/apps/keys.ts). Checked in this order, each failure a 401
 * `invalid_client` whose description says what to change:
 *   1. `client_assertion_type` is the jwt-bearer URN and `client_assertion` is a compact JWS;
 *   2. its `alg` is ES256 or RS256 (pinned: never `none`, never an HMAC keyed with a public key);
 *   3. `iss` and `sub` are the client_id (and the form's client_id, when sent, is the same);
 *   4. the app has a key with the header's `kid` (an unknown `kid` fetches the JWKS URL again), and
 *      the signature verifies with it;
 *   5. `aud` names the token endpoint or the issuer; `exp` is in the future and at most 5 minutes
 *      ahead; `jti` is present;
 *   6. the `jti` was never accepted for this app, and the key is still the app's: both decided by
 *      the one statement that records the `jti` (a unique key, so across instances), which finds
 *      the key's row. Removing a key therefore stops it at once on every instance.
 * An unknown client_id and an unknown `kid` answer the same description (SPEC: invalid_client never
 * tells whether a client_id exists).
 */

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const CLIENT_ASSERTION_ALGORITHMS = ["ES256", "RS256"] as const;
type AssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** RFC 7523 asks for a short life; SPEC: `exp` at most 5 minutes ahead. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** Clocks of apps and instances differ a little: this much is forgiven on `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_ASSERTION_LENGTH = 8192;
const MAX_JTI_LENGTH = 200;
/** A key's `lastUsedAt` is written at most this often, so a busy key is not a hot row. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AssertedClient {
  /** The app as stored (the caller strips what must not leave client authentication). */
  app: NonNullable<Awaited<ReturnType<typeof findAppByClientId>>>;
  /** The AppKey row that verified the assertion (for a JWKS URL, the URL's row). */
  keyId: string;
  kid: string | undefined;
}

const refused = (description: string, detail?: string) => invalidClient(description, detail);

const noKey = (kid: string | undefined) =>
  refused(
    `No key of this client matches the assertion${kid ? `'s kid "${kid.slice(0, 100)}"` : ""}. Add the public key on the app's page (Developer › Apps › Keys) or publish it at the app's JWKS URL, and sign with it${kid ? "" : " (put its kid in the JWT header)"}.`,
    "assertion key not found",
  );

interface StoredKey {
  id: string;
  source: "public_key" | "generated" | "jwks_url";
  kid: string | null;
  publicJwk: JWK | null;
  jwksUrl: string | null;
}

const readAppKeys = (appId: string) =>
  db().$queryRaw<StoredKey[]>`${PREPARED}
    SELECT id, source::text AS source, kid, "publicJwk", "jwksUrl" FROM "AppKey" WHERE "appId" = ${appId}
    ORDER BY "createdAt", id`;

/**
 * Keys change rarely: cached per process beside the app (the AppKey trigger empties the cache on
 * every instance). Removal is decided in `consumeAssertion` on the database; a key added on another
 * instance a moment ago is found by `readAppKeys`, read before any refusal.
 */
function appKeys(appId: string): Promise<StoredKey[]> {
  return cachedRead(
    `appkeys:${appId}`,
    () => readAppKeys(appId),
    () => true,
  );
}

/**
 * The app of an assertion's `iss`, from the read cache as the client secret's path takes it
 * (./client-auth.ts): a statement fewer per request. Only a found app is cached, so an unknown
 * client_id is refused on the database; a key removed since, or an app deleted (its keys with it),
 * is refused by `consumeAssertion`, on the database.
 */
function assertingApp(clientId: string): ReturnType<typeof findAppByClientId> {
  if (clientId.length > 200) return findAppByClientId(clientId);
  return cachedRead(
    `assertion-client:${clientId}`,
    () => findAppByClientId(clientId),
    (app) => app !== undefined,
  );
}

/** Imported keys, per stored JWK object (a cached row keeps its imported key). */
const imported = new WeakMap<object, Promise<CryptoKey | KeyObject | Uint8Array>>();

function importPublic(jwk: JWK, alg: AssertionAlgorithm): Promise<CryptoKey | KeyObject | Uint8Array> {
  let key = imported.get(jwk);
  if (!key) {
    key = importJWK(jwk, alg);
    imported.set(jwk, key);
  }
  return key;
}

const algorithmOfJwk = (jwk: JWK): AssertionAlgorithm | undefined =>
  jwk.kty === "EC" && jwk.crv === "P-256" ? "ES256" : jwk.kty === "RSA" ? "RS256" : undefined;

/** The candidate keys for the header's kid and alg: the app's own keys first, then its JWKS URL's. */
async function candidateKeys(
  keys: StoredKey[],
  kid: string | undefined,
  alg: AssertionAlgorithm,
): Promise<{ key: StoredKey; jwk: JWK }[]> {
  const fits = (jwk: JWK) => algorithmOfJwk(jwk) === alg && (kid === undefined || jwk.kid === kid);
  const own = keys.flatMap((key) =>
    key.publicJwk && fits({ ...key.publicJwk, kid: key.kid ?? undefined }) ? [{ key, jwk: key.publicJwk }] : [],
  );
  if (own.length > 0) return own;
  const published: { key: StoredKey; jwk: JWK }[] = [];
  for (const key of keys) {
    if (!key.jwksUrl) continue;
    const found = await jwksFor(key.jwksUrl, kid);
    if ("error" in found) throw refused(`${found.error} Fix the URL on the app's page, or add the public key there.`);
    for (const jwk of found.keys.keys) if (fits(jwk)) published.push({ key, jwk });
  }
  return published;
}

function expectClaims(payload: JWTPayload, clientId: string, nowSeconds: number): void {
  if (payload.iss !== clientId || payload.sub !== clientId) {
    throw refused('The assertion\'s "iss" and "sub" must both be the client_id.', "assertion iss/sub");
  }
  const issuer = appUrl();
  const accepted = [`${issuer}/oauth/token`, issuer];
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audience.some((a) => typeof a === "string" && accepted.includes(a))) {
    throw refused(
      `The assertion's "aud" must be the token endpoint (${accepted[0]}) or the issuer (${issuer}).`,
      "assertion aud",
    );
  }
  if (typeof payload.exp !== "number") throw refused('The assertion needs an "exp" (at most 5 minutes ahead).');
  if (payload.exp <= nowSeconds - CLOCK_TOLERANCE_SECONDS) {
    throw refused("The assertion has expired: sign a new one for each request.", "assertion expired");
  }
  if (payload.exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
    throw refused(
      'The assertion\'s "exp" is more than 5 minutes ahead: sign assertions that live at most 5 minutes.',
      "assertion exp too far",
    );
  }
  if (typeof payload.jti !== "string" || payload.jti === "" || payload.jti.length > MAX_JTI_LENGTH) {
    throw refused(`The assertion needs a unique "jti" (at most ${MAX_JTI_LENGTH} characters).`, "assertion jti");
  }
}

/**
 * Records the assertion's `jti` for its app and notes the key's use, only while the key's row
 * exists in the statement's snapshot: one statement, so a `jti` is accepted once across every
 * instance (its unique key) and a key removed before it began is refused by all of them. The row is
 * not locked: a removal committed while the statement runs is concurrent with it (the key was
 * still there when the request was judged), and a lock taken by every request of a busy key would
 * make PostgreSQL write a multixact on each.
 */
async function consumeAssertion(
  pending: PendingAssertion,
  now: Date,
): Promise<{ keyFound: boolean; accepted: boolean }> {
  const { appId, keyId, kid, jti } = pending;
  const rows = await db().$queryRaw<{ keyFound: boolean; accepted: boolean }[]>`${PREPARED}
    WITH key AS MATERIALIZED (
      SELECT id, "lastUsedAt" FROM "AppKey" WHERE id = ${keyId} AND "appId" = ${appId}
    ),
    recorded AS (
      INSERT INTO "ClientAssertion" ("appId", jti, "expiresAt")
      SELECT ${appId}, ${jti}, ${sqlTime(pending.expiresAt)} FROM key
      ON CONFLICT DO NOTHING
      RETURNING 1
    ),
    -- Runs though nothing reads it (PostgreSQL runs every data-modifying CTE).
    noted AS (
      UPDATE "AppKey" k SET "lastUsedAt" = ${sqlTime(now)}, "lastUsedKid" = ${kid}
      FROM key
      WHERE k.id = key.id AND (key."lastUsedAt" IS NULL OR key."lastUsedAt" < ${sqlTime(pending.lastUsedBefore)})
        AND EXISTS (SELECT 1 FROM recorded)
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM key) AS "keyFound", EXISTS (SELECT 1 FROM recorded) AS accepted`;
  return rows[0] ?? { keyFound: false, accepted: false };
}

/** Authenticates the client of `form` by its `client_assertion` (see the module comment). */
/**
 * A verified assertion whose `jti` is still to be consumed: by `authenticateByAssertion`, or by
 * the statement of the grant that asked for it (installation tokens consume it in the statement
 * that issues, one round trip). Whoever holds one must consume it before answering with anything.
 */
export interface PendingAssertion {
  appId: string;
  keyId: string;
  kid: string | null;
  jti: string;
  /** When the recorded `jti` may be pruned: the assertion's `exp` plus the clock tolerance. */
  expiresAt: Date;
  /** The key's `lastUsedAt` is written when it is older than this. */
  lastUsedBefore: Date;
}

/** The words of a refusal decided when the `jti` is consumed. */
export const assertionRefusals = {
  keyRemoved: (kid: string | null) => noKey(kid ?? undefined),
  replayed: () =>
    refused(
      'This assertion was already used: its "jti" is accepted once. Sign a new assertion, with a new jti, for each request.',
      "assertion replayed",
    ),
};

/** Authenticates the client of `form` by its `client_assertion` (see the module comment). */
export async function authenticateByAssertion(
  form: Record<string, string | undefined>,
  now: Date = new Date(),
): Promise<AssertedClient> {
  const { app, pending } = await verifyAssertion(form, now);
  const { keyFound, accepted } = await consumeAssertion(pending, now);
  if (!keyFound) throw assertionRefusals.keyRemoved(pending.kid);
  if (!accepted) throw assertionRefusals.replayed();
  return { app, keyId: pending.keyId, kid: pending.kid ?? undefined };
}

/** Steps 1 to 5 of the module comment: the assertion holds, its `jti` not yet consumed. */
export async function verifyAssertion(
  form: Record<string, string | undefined>,
  now: Date,
): Promise<{ app: AssertedClient["app"]; pending: PendingAssertion }> {
  if (form.client_assertion_type !== CLIENT_ASSERTION_TYPE) {
    throw refused(
      `client_assertion_type must be ${CLIENT_ASSERTION_TYPE} when a client_assertion is sent.`,
      "assertion type",
    );
  }
  const assertion = form.client_assertion;
  if (!assertion) throw refused("client_assertion is required with client_assertion_type.");
  if (assertion.length > MAX_ASSERTION_LENGTH) {
    throw refused(`client_assertion is longer than ${MAX_ASSERTION_LENGTH} characters.`);
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: JWTPayload;
  try {
    if (assertion.split(".").length !== 3) throw new Error("not three parts");
    header = decodeProtectedHeader(assertion);
    claims = decodeJwt(assertion);
  } catch {
    throw refused(
      "client_assertion is not a signed JWT (header.payload.signature, each part unpadded base64url).",
      "assertion shape",
    );
  }
  const alg = header.alg;
  if (!CLIENT_ASSERTION_ALGORITHMS.includes(alg as AssertionAlgorithm)) {
    throw refused(
      `The assertion is signed with alg "${String(alg).slice(0, 20)}"; sign it with ES256 or RS256 using one of the app's keys.`,
      "assertion alg",
    );
  }
  // One spelling per assertion: jose decodes leniently, and a second spelling of an unused
  // assertion would be a second assertion (its jti still stops the replay of either).
  if (!isJwtShaped(assertion) || !isCanonicalJwt(assertion)) {
    throw refused(
      "client_assertion is not a signed JWT (header.payload.signature, each part unpadded base64url).",
      "assertion not canonical",
    );
  }
  const clientId = typeof claims.iss === "string" ? claims.iss : undefined;
  if (!clientId || claims.sub !== clientId) {
    throw refused('The assertion\'s "iss" and "sub" must both be the client_id.', "assertion iss/sub");
  }
  if (form.client_id !== undefined && form.client_id !== clientId) {
    throw invalidRequest("The client_id in the form differs from the assertion's iss.");
  }
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const app = await assertingApp(clientId);
  if (!app) throw noKey(kid);
  let candidates = await candidateKeys(await appKeys(app.id), kid, alg as AssertionAlgorithm);
  // Every refusal is decided on the database: the key may have been added a moment ago elsewhere.
  if (candidates.length === 0)
    candidates = await candidateKeys(await readAppKeys(app.id), kid, alg as AssertionAlgorithm);
  if (candidates.length === 0) throw noKey(kid);

  let verified: { key: StoredKey; payload: JWTPayload } | undefined;
  for (const candidate of candidates) {
    try {
      const key = await importPublic(candidate.jwk, alg as AssertionAlgorithm);
      const { payload } = await jwtVerify(assertion, key, {
        algorithms: [alg as AssertionAlgorithm],
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      verified = { key: candidate.key, payload };
      break;
    } catch (error) {
      // A claim jose checks itself (nbf, exp) failing means the signature held: say which.
      if (error instanceof joseErrors.JWTExpired) {
        throw refused("The assertion has expired: sign a new one for each request.", "assertion expired");
      }
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        throw refused(`The assertion's "${error.claim}" claim is not valid: ${error.reason}.`, "assertion claim");
      }
    }
  }
  if (!verified) {
    throw refused(
      `The assertion's signature does not verify with the app's key${kid ? ` "${kid.slice(0, 100)}"` : "s"}. Sign it with the private key whose public key is on the app's page.`,
      "assertion signature",
    );
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  expectClaims(verified.payload, clientId, nowSeconds);
  const pending: PendingAssertion = {
    appId: app.id,
    keyId: verified.key.id,
    kid: kid ?? null,
    jti: verified.payload.jti as string,
    expiresAt: new Date(((verified.payload.exp as number) + CLOCK_TOLERANCE_SECONDS) * 1000),
    lastUsedBefore: new Date(now.getTime() - LAST_USED_RESOLUTION_MS),
  };
  return { app, pending };
}
