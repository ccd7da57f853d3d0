import { ApiError, bearerChallenge } from "@/lib/api/errors";
import {
  type VerificationContext,
  verificationContext,
  verifyPrivateIntegrationToken,
} from "@/lib/integrations/verify";
import type { Scope } from "@/lib/scopes";
import { verifyAccessToken } from "./access-token";
import type { Principal, VerifyResult } from "./principal";

/**
 * The one verification path of `Authorization: Bearer …` (RFC 6750 §2.1). The token's shape picks
 * the verifier: `pit-...` is a private-integration token, three base64url parts an ES256 access
 * token. Both give the same Principal. Successes are cached for under a second per process
 * (lib/db/read-cache.ts): a revocation, uninstall, rotation or delete is refused at once
 * by the instance that made it and, through NOTIFY, within milliseconds by every other one sharing
 * the database (README, "Performance").
 */

type ChallengeCode = "invalid_request" | "invalid_token" | "insufficient_scope" | "forbidden";

/**
 * RFC 6750 §3 `WWW-Authenticate` for a 401 or 403 of a Bearer-protected endpoint. SPEC.md puts
 * the same challenge on its 403 `forbidden`, a code RFC 6750 does not name.
 */
export function bearerChallengeHeader(code: ChallengeCode, description: string, scope?: string): string {
  return bearerChallenge(code as "invalid_token", description, scope);
}

/** An ApiError of a Bearer-protected endpoint, with its challenge header. */
export function bearerError(code: ChallengeCode, description: string, scope?: string): ApiError {
  return new ApiError(code, description, {
    headers: { "www-authenticate": bearerChallengeHeader(code, description, scope) },
  });
}

const headerPattern = /^Bearer +([^\s]+) *$/i;
const jwtPattern = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

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
  if (token.startsWith("pit-")) return verifyPrivateIntegrationToken(token, now, context);
  if (token.length <= 8192 && jwtPattern.test(token)) return verifyAccessToken(token, now);
  return { ok: false, reason: "malformed" };
}

/**
 * The Principal of the request's Bearer token, or a 401 `invalid_token` carrying the RFC 6750
 * challenge and a sentence that says what to do.
 */
export async function authenticateBearer(request: Request, now: Date = new Date()): Promise<Principal> {
  const token = bearerToken(request);
  const result = await verifyBearerToken(token, now, verificationContext(request.headers));
  if (result.ok) return result.principal;
  if (result.reason === "refused") throw bearerError(result.refusal.code, result.refusal.description);
  if (token.startsWith("pit-")) throw bearerError("invalid_token", privateIntegrationReasons[result.reason]);
  if (jwtPattern.test(token)) throw bearerError("invalid_token", accessTokenReasons[result.reason]);
  throw bearerError(
    "invalid_token",
    "The Bearer token is neither an access token (a JWT from POST /oauth/token) nor a private-integration token (pit-...).",
  );
}

/** 403 insufficient_scope naming the missing scope, with the way to get it for this kind of token. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (principal.scopes.includes(scope)) return;
  const how =
    principal.kind === "private_integration"
      ? "Edit the private integration to add it (its token keeps working with the new scopes)."
      : "Add it to the app's scopes and have the app installed again.";
  throw bearerError("insufficient_scope", `This token lacks the ${scope} scope. ${how}`, scope);
}

/**
 * Sub-account endpoints take a Location token; an agency-level token (a Company access token or
 * an agency private integration) is refused with the way to get one. Checked before the scope:
 * an agency-level token can never hold a sub-account scope, so "add the scope" would mislead.
 */
export function requireLocationToken(principal: Principal): string {
  if (principal.authClass === "Location" && principal.locationId) return principal.locationId;
  const what = principal.kind === "private_integration" ? "An agency private integration" : "A Company token";
  throw bearerError(
    "forbidden",
    `${what} cannot call sub-account endpoints. Use a Location token: exchange the Company token at POST /oauth/locationToken, or use a sub-account private integration.`,
  );
}
