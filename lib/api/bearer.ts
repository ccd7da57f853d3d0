import { checkPrivateIntegrationToken, type VerificationContext, verificationContext } from "@/lib/integrations/verify";
import { holdsScope, type Scope } from "@/lib/scopes";
import { isJwtShaped, verifyAccessToken } from "@/lib/tokens/access-token";
import { locationOf, type Principal, type VerifyResult } from "@/lib/tokens/principal";
import { HttpError } from "./http-error";
import { noteCaller, usageSubjectOf } from "./usage";

/**
 * The HTTP half of `Authorization: Bearer …` (RFC 6750): reading the header, picking the verifier
 * by the token's shape, and the 401/403 answers with their challenge. Verification itself is
 * framework-free: `pit-...` tokens in lib/integrations/verify.ts, ES256 access tokens in
 * lib/tokens/access-token.ts; both give the same Principal. Successes are cached for under a
 * second per process (lib/db/read-cache.ts): a revocation, uninstall, rotation or delete is refused
 * at once by the instance that made it and, through NOTIFY, within milliseconds by every other one
 * sharing the database (README, "Performance").
 */

/** RFC 6750 §3's three codes, and SPEC.md's 403 `forbidden`, which carries the same challenge. */
type ChallengeCode = "invalid_request" | "invalid_token" | "insufficient_scope" | "forbidden";

/** RFC 6750 §3 `WWW-Authenticate` for a 401 or 403 of a Bearer-protected endpoint. */
export function bearerChallenge(code: ChallengeCode, description: string, scope?: string): string {
  // Header values are bytes, and RFC 6750 §3 allows only printable ASCII (no quote or backslash) in them.
  const quote = (s: string) =>
    s
      .replace(/…/g, "...")
      .replace(/["\\]/g, "'")
      .replace(/[^\x20-\x7e]/g, "?");
  // SPEC.md writes the challenge as `Bearer error="..."`: error first, no realm (RFC 6750 makes it optional).
  let value = `Bearer error="${code}", error_description="${quote(description)}"`;
  if (scope) value += `, scope="${quote(scope)}"`;
  return value;
}

/** An HttpError of a Bearer-protected endpoint, with its challenge header. */
export function bearerError(code: ChallengeCode, description: string, scope?: string): HttpError {
  return new HttpError(code, description, {
    headers: { "www-authenticate": bearerChallenge(code, description, scope) },
  });
}

const headerPattern = /^Bearer +([^\s]+) *$/i;

type Reason = Exclude<Exclude<VerifyResult, { ok: true }>["reason"], "refused">;

const accessTokenReasons: Record<Reason, string> = {
  malformed: "The access token is malformed. Send the access_token of a token response as is.",
  unknown: "The access token was not issued by this server.",
  expired: "The access token has expired. Get a new one from POST /oauth/token with grant_type=refresh_token.",
  revoked: "The access token has been revoked or the app was uninstalled. Install the app again to get new tokens.",
};

const privateIntegrationReasons: Record<Reason, string> = {
  malformed:
    "The private-integration token is malformed: it is pit- followed by 32 hex digits in groups of 8-4-4-4-12, as shown when it was created.",
  unknown:
    "This private-integration token is not known: its integration may have been deleted. Create one under Settings > Private Integrations.",
  expired:
    "This private-integration token expired at the end of its rotation. Use the integration's new token from Settings > Private Integrations.",
  revoked:
    "This private-integration token no longer works: it was rotated or its rotation was cancelled. Use the integration's current token.",
};

/** The raw token of `Authorization: Bearer <token>`, or a 401 saying what to send. */
export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) {
    throw bearerError(
      "invalid_token",
      "Send Authorization: Bearer <token> with an access token (POST /oauth/token) or a private-integration token (pit-...).",
    );
  }
  const match = headerPattern.exec(header);
  if (!match) {
    throw bearerError(
      "invalid_token",
      "The Authorization header must be Bearer followed by one token: an access token or a private-integration token (pit-...).",
    );
  }
  return match[1] as string;
}

/** Verifies a token of either kind, by its shape. */
export async function verifyBearerToken(
  token: string,
  now: Date = new Date(),
  context?: VerificationContext,
): Promise<VerifyResult> {
  return checkBearerToken(token, now, context);
}

/** verifyBearerToken, answering at once when the token's verification is cached. */
function checkBearerToken(
  token: string,
  now: Date,
  context: VerificationContext | undefined,
): VerifyResult | Promise<VerifyResult> {
  if (token.startsWith("pit-")) return checkPrivateIntegrationToken(token, now, context);
  if (isJwtShaped(token)) return verifyAccessToken(token, now);
  return { ok: false, reason: "malformed" };
}

/**
 * The Principal of the request's Bearer token, or a 401 `invalid_token` carrying the RFC 6750
 * challenge and a sentence that says what to do.
 */
export async function authenticateBearer(request: Request, now: Date = new Date()): Promise<Principal> {
  return authenticateBearerNow(request, now);
}

/**
 * authenticateBearer, answering at once (or throwing) when the token's verification is cached, so
 * the API's hot path waits for no promise there; otherwise a promise of the same.
 */
export function authenticateBearerNow(request: Request, now: Date = new Date()): Principal | Promise<Principal> {
  const token = bearerToken(request);
  const result = checkBearerToken(token, now, verificationContext(request.headers));
  return result instanceof Promise
    ? result.then((settled) => principalOf(request, token, settled))
    : principalOf(request, token, result);
}

function principalOf(request: Request, token: string, result: VerifyResult): Principal {
  // Whose usage this request counts (SPEC.md › Usage and reminders), refusals of a known integration included.
  noteCaller(
    request,
    result.ok
      ? usageSubjectOf(result.principal)
      : result.integrationId
        ? { type: "integration", id: result.integrationId }
        : undefined,
  );
  if (result.ok) return result.principal;
  if (result.reason === "refused") throw bearerError(result.refusal.code, result.refusal.description);
  if (token.startsWith("pit-")) throw bearerError("invalid_token", privateIntegrationReasons[result.reason]);
  if (isJwtShaped(token)) throw bearerError("invalid_token", accessTokenReasons[result.reason]);
  throw bearerError(
    "invalid_token",
    "The Bearer token is neither an access token (a JWT from POST /oauth/token) nor a private-integration token (pit-...).",
  );
}

/** 403 insufficient_scope naming the missing scope, with the way to get it for this kind of token. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (holdsScope(principal.scopes, scope)) return;
  const how =
    principal.kind === "private_integration"
      ? "Edit the private integration to add it (its token keeps working with the new scopes)."
      : "Add it to the app's scopes; the installation's admin approves the update (no reinstall).";
  throw bearerError("insufficient_scope", `This token lacks the ${scope} scope. ${how}`, scope);
}

/**
 * Sub-account endpoints take a Location token; an agency-level token (a Company access token or
 * an agency private integration) is refused with the way to get one. Checked before the scope:
 * an agency-level token can never hold a sub-account scope, so "add the scope" would mislead.
 */
export function requireLocationToken(principal: Principal): string {
  const locationId = locationOf(principal);
  if (locationId) return locationId;
  const what = principal.kind === "private_integration" ? "An agency private integration" : "A Company token";
  throw bearerError(
    "forbidden",
    `${what} cannot call sub-account endpoints. Use a Location token: exchange the Company token at POST /oauth/locationToken, or use a sub-account private integration.`,
  );
}

/**
 * The management API of private integrations takes agency private integrations only: an app's
 * access token (whatever its scopes) and a sub-account integration get 403 forbidden, before the
 * scope, since adding a scope would not help them.
 */
export function requireAgencyPrivateIntegration(principal: Principal): void {
  if (principal.kind !== "private_integration") {
    throw bearerError(
      "forbidden",
      "Only private integrations manage private integrations; an app's access token cannot. Use an agency private integration with private-integrations.write (or .readonly to read).",
    );
  }
  if (principal.authClass !== "Company") {
    throw bearerError(
      "forbidden",
      "Only agency private integrations manage private integrations; a sub-account integration cannot hold private-integrations.write. Create an agency integration under Settings > Private Integrations.",
    );
  }
}

/**
 * The Company access token that /oauth/locationToken and /oauth/installedLocations take, verified
 * by the one Bearer path of the API (`authenticateBearer`). A private-integration token is refused
 * before any lookup: these endpoints are for apps. `count` (the rate limit, lib/api/token-route.ts)
 * runs once the token is verified, before its level and scope are checked, as on the API routes.
 */
export async function requireCompanyToken(
  request: Request,
  scope: Scope,
  options: { now?: Date; count?: (principal: Principal) => Promise<void> } = {},
): Promise<Principal> {
  if (bearerToken(request).startsWith("pit-")) {
    throw bearerError(
      "forbidden",
      "Private-integration tokens cannot be used here; use the Company access token of an app installed on the agency.",
    );
  }
  const principal = await authenticateBearer(request, options.now ?? new Date());
  await options.count?.(principal);
  if (principal.authClass !== "Company") {
    throw bearerError(
      "forbidden",
      "A Location token cannot be used here; use the Company access token of an app installed on the agency.",
    );
  }
  if (!principal.scopes.includes(scope)) {
    throw bearerError(
      "insufficient_scope",
      `The access token lacks the ${scope} scope. Add it to the app's scopes; the installation's admin approves the update (no reinstall).`,
      scope,
    );
  }
  return principal;
}
