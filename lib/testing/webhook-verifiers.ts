import { createPublicKey, type JsonWebKey, KeyObject, verify } from "node:crypto";
import { WebhookManager } from "@gohighlevel/api-client";
import { Webhook } from "standardwebhooks";
import type { ReceivedWebhook } from "./webhook-receiver";

/**
 * What an app's receiver does with a delivery, with the tools app developers already have
 * (node:crypto, `standardwebhooks`, the platform's SDK), and on purpose not with
 * lib/webhooks/signer.ts: our own verifier could share a bug with our signer. Tests and e2e specs.
 */

/** The headers as a plain record of strings, as the `standardwebhooks` library takes them. */
export function plainHeaders(webhook: ReceivedWebhook): Record<string, string> {
  return Object.fromEntries(Object.entries(webhook.headers).map(([k, v]) => [k, String(v)]));
}

/** `new Webhook(secret).verify(body, headers)`, as the library's README shows; true when it returns. */
export function standardWebhooksVerifies(webhook: ReceivedWebhook, webhookSecret: string): boolean {
  try {
    new Webhook(webhookSecret).verify(webhook.body, plainHeaders(webhook));
    return true;
  } catch {
    return false;
  }
}

/** Whether a `v1a,<base64 Ed25519>` signature over "<id>.<timestamp>.<body>" verifies under one of `keys`. */
export function v1aVerifies(webhook: ReceivedWebhook, keys: KeyObject | (KeyObject | JsonWebKey)[]): boolean {
  const signed = Buffer.from(
    `${webhook.headers["webhook-id"]}.${webhook.headers["webhook-timestamp"]}.${webhook.body}`,
  );
  const signatures = String(webhook.headers["webhook-signature"] ?? "")
    .split(" ")
    .filter((s) => s.startsWith("v1a,"))
    .map((s) => Buffer.from(s.slice(4), "base64"));
  return (Array.isArray(keys) ? keys : [keys]).some((key) => {
    const publicKey = key instanceof KeyObject ? key : createPublicKey({ key, format: "jwk" });
    return signatures.some((signature) => verify(null, signed, publicKey, signature));
  });
}

/** `x-ghl-signature`: Ed25519 over the raw body bytes, under the PEM. */
export function ghlSignatureVerifies(webhook: ReceivedWebhook, pem: string): boolean {
  const signature = Buffer.from(String(webhook.headers["x-ghl-signature"] ?? ""), "base64");
  return verify(null, Buffer.from(webhook.body, "utf8"), createPublicKey(pem), signature);
}

/** The platform SDK's middleware, as an Express app would mount it, given our raw body. */
export async function sdkOutcome(webhook: ReceivedWebhook, clientId: string, pem: string) {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const manager = new WebhookManager(silent as never, {} as never, {} as never, { clientId, publicKey: pem });
  const req: Record<string, unknown> = {
    method: "POST",
    url: "/hooks",
    headers: webhook.headers,
    body: Buffer.from(webhook.body, "utf8"),
  };
  let passed: unknown = "not called";
  await manager.subscribe()(req as never, {} as never, (error?: unknown) => {
    passed = error;
  });
  return { passed, isSignatureValid: req.isSignatureValid, skipped: req.skippedSignatureVerification };
}
