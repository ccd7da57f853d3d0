import { apiRoute, json } from "@/lib/api/handler";
import { jwksSchema } from "@/lib/api/openapi/operation";
import { routeMethods } from "@/lib/api/route-methods";
import { webhookKeysJwks } from "@/lib/webhooks/signing-key";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * The public keys that verify our webhooks' `v1a` signatures (Standard Webhooks), as a JWKS.
   * GET route handlers are dynamic in Next.js 16, so this is read at request time, never at build.
   */
  GET: apiRoute(
    {
      operationId: "webhookKeys",
      tag: "Discovery",
      summary: "Webhook signing keys (Ed25519 JWKS)",
      description:
        "Verify webhook-signature v1a with these (Standard Webhooks); v1 is HMAC under the app's webhook secret. For 7 days after a webhook-key rotation both keys sign and are listed.",
      auth: "none",
      success: { status: 200, description: "JWKS of OKP keys.", name: "WebhookKeys", schema: jwksSchema },
      errors: {},
    },
    async () => json(await webhookKeysJwks(), { headers: { "cache-control": "public, max-age=300" } }),
  ),
});
