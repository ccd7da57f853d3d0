import { apiRoute, otherMethods } from "@/lib/api/handler";
import { webhookPublicKeyPem } from "@/lib/webhooks/signing-key";

/**
 * The public key that verifies `x-ghl-signature` (Ed25519 over the raw body), as an SPKI PEM: what
 * the platform's SDK takes as `publicKey` / WEBHOOK_SIGNATURE_PUBLIC_KEY. Read at request time.
 */
export const GET = apiRoute(
  async () =>
    new Response(await webhookPublicKeyPem(), {
      headers: { "content-type": "application/x-pem-file", "cache-control": "public, max-age=300" },
    }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
