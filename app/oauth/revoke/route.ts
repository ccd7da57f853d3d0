import { routeMethods } from "@/lib/api/route-methods";
import { revokeForm } from "@/lib/oauth/documented-forms";
import { noStoreRoute } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/revoke";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /oauth/revoke (RFC 7009): 200 with an empty body, also for tokens already dead. */
  POST: noStoreRoute(
    {
      operationId: "revoke",
      tag: "OAuth",
      summary: "Revoke a token (RFC 7009)",
      description:
        "An access token alone, or a refresh token with its whole grant. An unknown token is 200 too (RFC 7009 §2.2).",
      auth: "client",
      body: { contentType: "application/x-www-form-urlencoded", name: "RevokeRequest", schema: revokeForm },
      success: { status: 200, description: "Revoked (or never valid)." },
      errors: {
        invalid_request: "Not a form body, or token missing.",
        invalid_client: "Client authentication failed.",
      },
    },
    async (request) => {
      await revokeToken(request);
      return new Response(null, { status: 200 });
    },
  ),
});
