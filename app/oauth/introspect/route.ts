import { json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { introspection, revokeForm } from "@/lib/oauth/documented-forms";
import { noStoreRoute } from "@/lib/oauth/http";
import { introspectToken } from "@/lib/oauth/introspect";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /oauth/introspect (RFC 7662). */
  POST: noStoreRoute(
    {
      operationId: "introspect",
      tag: "OAuth",
      summary: "Introspect a token (RFC 7662)",
      description: 'The client\'s own tokens only; anything else is {"active": false}.',
      auth: "client",
      body: { contentType: "application/x-www-form-urlencoded", name: "IntrospectRequest", schema: revokeForm },
      success: { status: 200, description: "The token's state.", name: "Introspection", schema: introspection },
      errors: {
        invalid_request: "Not a form body, or token missing.",
        invalid_client: "Client authentication failed.",
      },
    },
    async (request) => json(await introspectToken(request)),
  ),
});
