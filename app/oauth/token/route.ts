import { json, noStore } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenForm, tokenResponse } from "@/lib/oauth/documented-forms";
import { noStoreRoute } from "@/lib/oauth/http";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /oauth/token (RFC 6749 §3.2): the checks and grants live in lib/oauth. */
  POST: noStoreRoute(
    {
      operationId: "token",
      tag: "OAuth",
      summary: "Exchange a code or refresh token for tokens, or get an installation token",
      description:
        "RFC 6749 §4.1.3 and §6. A code used twice fails and revokes every token issued from it. A refresh token is single use and rotates; the same client presenting a used one again within REFRESH_TOKEN_REUSE_SECONDS (default 30 s after its first use; 0 turns the window off) gets 200 with another working pair of the same family and nothing is revoked (a retry after a lost response, or two processes of one app refreshing at once). Presented after the window it is reuse: 400 invalid_grant and its whole family is revoked. The window never revives an expired or revoked refresh token. Tokens carry only the scopes the installation grants now. grant_type=client_credentials (authenticated by private_key_jwt only) with companyId or locationId answers an installation token: an access token of the app's installation there for 1 hour, with its current approved scopes and no refresh token; not installed there, or uninstalled: 400 invalid_grant. The way back for an app that lost its tokens, without a reinstall. Answers carry Cache-Control: no-store.",
      auth: "client",
      body: { contentType: "application/x-www-form-urlencoded", name: "TokenRequest", schema: tokenForm },
      success: { status: 200, description: "Tokens.", name: "TokenResponse", schema: tokenResponse },
      errors: {
        invalid_request: "Not a form body, a parameter missing or sent twice.",
        unsupported_grant_type: "grant_type is not authorization_code, refresh_token or client_credentials.",
        invalid_client:
          "Client authentication failed: a wrong client_id or secret, or a client_assertion that is malformed, replayed (its jti), expired, too long-lived, for another aud, or signed by no key of the app.",
        invalid_grant:
          "The code or refresh token is invalid, expired, revoked, used (a refresh token: after its reuse window), or does not match; client_credentials: the app is not installed there, or was uninstalled.",
        unauthorized_client:
          "The client may not use this grant: client_credentials with a client secret (it needs private_key_jwt).",
        invalid_scope: "A requested scope is not allowed.",
        rate_limited:
          "client_credentials: over the app's limits on that agency or sub-account (the bucket its API calls use); Retry-After says when.",
      },
    },
    async (request) => json(await tokenEndpoint(request), { headers: noStore }),
  ),
});
