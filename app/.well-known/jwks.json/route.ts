import { apiRoute, json } from "@/lib/api/handler";
import { jwksSchema } from "@/lib/api/openapi/operation";
import { routeMethods } from "@/lib/api/route-methods";
import { accessTokenJwks } from "@/lib/tokens/signing-keys";

/** GET /.well-known/jwks.json: the public keys of every access token that may still be alive. */
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(
    {
      operationId: "jwks",
      tag: "Discovery",
      summary: "Access-token signing keys (JWKS)",
      description:
        "The ES256 public keys of every access token that may still be alive, by kid. After a rotation (signing-key:rotate, or every SIGNING_KEY_ROTATION_DAYS) the old key stays until every token it signed has expired. Cache-Control: public, max-age=300: fetch again at least every five minutes, and at once on an unknown kid.",
      auth: "none",
      success: { status: 200, description: "JWKS.", name: "Jwks", schema: jwksSchema },
      errors: {},
    },
    async () => json(await accessTokenJwks(), { headers: { "cache-control": "public, max-age=300" } }),
  ),
});
