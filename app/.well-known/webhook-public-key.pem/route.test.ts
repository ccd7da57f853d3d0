import { createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { apiClient } from "@/lib/testing/api-client";
import { platformSignature } from "@/lib/webhooks/signer";
import { currentWebhookSigningKey } from "@/lib/webhooks/signing-key";

const api = apiClient(apiRoutes);

describe("GET /.well-known/webhook-public-key.pem", () => {
  it("serves the current webhook key as an SPKI PEM, the same key as the JWKS", async () => {
    const response = await api.get("/.well-known/webhook-public-key.pem");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-pem-file");
    expect(response.headers.get("x-trace-id")).toBeTruthy();
    const pem = response.text;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
    expect(pem).not.toMatch(/PRIVATE/);
    const key = createPublicKey({ key: pem, format: "pem" });
    expect(key.asymmetricKeyType).toBe("ed25519");

    const jwks = (await api.get("/.well-known/webhook-keys")).body as { keys: { x: string }[] };
    expect(jwks.keys.map((k) => k.x)).toContain((key.export({ format: "jwk" }) as { x: string }).x);

    // What x-ghl-signature carries verifies under it with node:crypto alone.
    const body = Buffer.from('{"type":"INSTALL"}');
    const signature = platformSignature(body, (await currentWebhookSigningKey()).privateKey);
    expect(verify(null, body, key, Buffer.from(signature, "base64"))).toBe(true);
  });
});
