import { ApiError, bearerChallenge } from "@/lib/api/errors";
import type { Scope } from "@/lib/scopes";
import { authenticateBearer, bearerToken } from "@/lib/tokens/bearer";
import type { Principal } from "@/lib/tokens/principal";

/** Bearer errors of the OAuth endpoints: 401 and 403 answers carry `WWW-Authenticate` (RFC 6750 §3). */

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
      `The access token lacks the ${scope} scope. Add it to the app's scopes and install the app again.`,
      scope,
    );
  }
  return principal;
}
