import { ApiError, bearerChallenge } from "@/lib/api/errors";
import type { Scope } from "@/lib/scopes";
import { verifyAccessToken } from "@/lib/tokens/access-token";
import type { Principal } from "@/lib/tokens/principal";

/**
 * The Company access token that /oauth/locationToken and /oauth/installedLocations take. 401 and
 * 403 answers carry `WWW-Authenticate: Bearer error="…"` (RFC 6750 §3).
 */

function challenge(code: string, description: string, scope?: string): Record<string, string> {
  // bearerChallenge types RFC 6750's three codes; SPEC.md's 403 forbidden uses the same header shape.
  return { "www-authenticate": bearerChallenge(code as "invalid_token", description, scope) };
}

export function bearerError(
  code: "invalid_request" | "invalid_token" | "insufficient_scope" | "forbidden",
  description: string,
  scope?: string,
): ApiError {
  return new ApiError(code, description, { headers: challenge(code, description, scope) });
}

const reasons = {
  malformed: "The access token is malformed. Send the access_token of a token response as is.",
  unknown: "The access token was not issued by this server.",
  expired: "The access token has expired. Get a new one with grant_type=refresh_token.",
  revoked: "The access token has been revoked or the app uninstalled.",
} as const;

export async function requireCompanyToken(request: Request, scope: Scope, now = new Date()): Promise<Principal> {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!match) {
    throw bearerError("invalid_token", "Send the app's Company access token as Authorization: Bearer <token>.");
  }
  const token = match[1]!;
  if (token.startsWith("pit-")) {
    throw bearerError(
      "forbidden",
      "Private-integration tokens cannot be used here; use the Company access token of an app installed on the agency.",
    );
  }
  const result = await verifyAccessToken(token, now);
  if (!result.ok) throw bearerError("invalid_token", reasons[result.reason]);
  const { principal } = result;
  if (principal.authClass !== "Company") {
    throw bearerError(
      "forbidden",
      "A Location token cannot be used here; use the Company access token of an app installed on the agency.",
    );
  }
  if (!principal.scopes.includes(scope)) {
    throw bearerError(
      "insufficient_scope",
      `The access token lacks the ${scope} scope. Add it to the app's scopes and install the app again.`,
      scope,
    );
  }
  return principal;
}
