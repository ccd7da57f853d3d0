import { apiRoute, json, otherMethods } from "@/lib/api/handler";
import { webhookKeysJwks } from "@/lib/webhooks/signing-key";

/**
 * The public keys that verify our webhooks' `v1a` signatures (Standard Webhooks), as a JWKS.
 * GET route handlers are dynamic in Next.js 16, so this is read at request time, never at build.
 */
export const GET = apiRoute(async () =>
  json(await webhookKeysJwks(), { headers: { "cache-control": "public, max-age=300" } }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
