import { apiRoute } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { webhookPublicKeyPem } from "@/lib/webhooks/signing-key";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * The public key that verifies `x-ghl-signature` (Ed25519 over the raw body), as an SPKI PEM: what
   * the platform's SDK takes as `publicKey` / WEBHOOK_SIGNATURE_PUBLIC_KEY. Read at request time.
   */
  GET: apiRoute(
    {
      operationId: "webhookPublicKeyPem",
      tag: "Discovery",
      summary: "Webhook signing key (PEM)",
      description:
        "The Ed25519 key x-ghl-signature is under now, as an SPKI PEM: verify x-ghl-signature (Ed25519 over the raw body bytes) with it, as the platform's SDK does. After a webhook-key rotation it stays the old key for 7 days, then the new one.",
      auth: "none",
      success: { status: 200, description: "SPKI PEM.", contentType: "application/x-pem-file" },
      errors: {},
    },
    async () =>
      new Response(await webhookPublicKeyPem(), {
        headers: { "content-type": "application/x-pem-file", "cache-control": "public, max-age=300" },
      }),
  ),
});
