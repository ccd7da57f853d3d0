import { z } from "zod";
import { apiRoute, json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { authorizationServerMetadata } from "@/lib/oauth/metadata";
import { allScopes, type Scope } from "@/lib/scopes";

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(
    {
      operationId: "authorizationServerMetadata",
      tag: "Discovery",
      summary: "Authorization server metadata (RFC 8414)",
      description: "Endpoints, grant types, auth methods and every scope.",
      auth: "none",
      success: {
        status: 200,
        description: "Metadata.",
        name: "AuthorizationServerMetadata",
        schema: z.looseObject({
          issuer: z.string(),
          authorization_endpoint: z.string(),
          token_endpoint: z.string(),
          jwks_uri: z.string(),
          scopes_supported: z.array(z.enum(allScopes as [Scope, ...Scope[]])),
        }),
      },
      errors: {},
    },
    async () => json(authorizationServerMetadata(), { headers: { "cache-control": "public, max-age=300" } }),
  ),
});
