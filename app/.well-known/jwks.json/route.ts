import { apiRoute, json, otherMethods } from "@/lib/api/handler";
import { accessTokenJwks } from "@/lib/tokens/signing-keys";

/** GET /.well-known/jwks.json: the public keys of every access token that may still be alive. */
export const dynamic = "force-dynamic";
export const GET = apiRoute(async () =>
  json(await accessTokenJwks(), { headers: { "cache-control": "public, max-age=300" } }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
