import { json, noStore, otherMethods } from "@/lib/api/handler";
import { tokenForm, tokenResponse } from "@/lib/oauth/documented-forms";
import { noStoreRoute } from "@/lib/oauth/http";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";

/** POST /oauth/token (RFC 6749 §3.2): the checks and grants live in lib/oauth. */
export const POST = noStoreRoute(
  {
    operationId: "token",
    tag: "OAuth",
    summary: "Exchange a code or refresh token for tokens",
    description:
      "RFC 6749 §4.1.3 and §6. A code used twice fails and revokes every token issued from it. A refresh token is single use and rotates; the same client presenting a used one again within REFRESH_TOKEN_REUSE_SECONDS (default 30 s after its first use; 0 turns the window off) gets 200 with another working pair of the same family and nothing is revoked (a retry after a lost response, or two processes of one app refreshing at once). Presented after the window it is reuse: 400 invalid_grant and its whole family is revoked. The window never revives an expired or revoked refresh token. Tokens carry only the scopes the installation grants now. Answers carry Cache-Control: no-store.",
    auth: "client",
    body: { contentType: "application/x-www-form-urlencoded", name: "TokenRequest", schema: tokenForm },
    success: { status: 200, description: "Tokens.", name: "TokenResponse", schema: tokenResponse },
    errors: {
      invalid_request: "Not a form body, a parameter missing or sent twice.",
      unsupported_grant_type: "grant_type is not authorization_code or refresh_token.",
      invalid_client: "Client authentication failed.",
      invalid_grant:
        "The code or refresh token is invalid, expired, revoked, used (a refresh token: after its reuse window), or does not match.",
      unauthorized_client: "The client may not use this grant.",
      invalid_scope: "A requested scope is not allowed.",
    },
  },
  async (request) => json(await tokenEndpoint(request), { headers: noStore }),
);
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
