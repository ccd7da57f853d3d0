import { apiRoute, json, otherMethods } from "@/lib/api/handler";
import { authorizationServerMetadata } from "@/lib/oauth/metadata";

/** GET /.well-known/oauth-authorization-server (RFC 8414). */
export const dynamic = "force-dynamic";
export const GET = apiRoute(async () =>
  json(authorizationServerMetadata(), { headers: { "cache-control": "public, max-age=300" } }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
