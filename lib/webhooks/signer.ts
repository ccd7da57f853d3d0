import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/), asymmetric variant:
 *   webhook-id: <event id>            (the same on every retry: receivers dedupe on it)
 *   webhook-timestamp: <unix seconds> (of this attempt)
 *   webhook-signature: v1a,<base64 Ed25519 signature of "<id>.<timestamp>.<body>">
 * where body is the exact bytes sent. The public keys are at GET /.well-known/webhook-keys.
 */

export interface WebhookSignatureInput {
  id: string;
  /** Unix seconds. */
  timestamp: number | string;
  /** The exact request body. */
  body: string | Uint8Array;
}

function signedContent({ id, timestamp, body }: WebhookSignatureInput): Buffer {
  return Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), Buffer.from(body)]);
}

/** The `webhook-signature` value for one attempt. */
export function signWebhook(input: WebhookSignatureInput, privateKey: KeyObject): string {
  return `v1a,${sign(null, signedContent(input), privateKey).toString("base64")}`;
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookSignatureHeaders(input: WebhookSignatureInput, privateKey: KeyObject): Record<string, string> {
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestamp),
    "webhook-signature": signWebhook(input, privateKey),
  };
}

type JwkLike = { kty?: string; crv?: string; x?: string; kid?: string };
export type WebhookVerificationKeys = { keys: JwkLike[] } | JwkLike | KeyObject | KeyObject[];
type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

function publicKeys(keys: WebhookVerificationKeys): KeyObject[] {
  const list: (JwkLike | KeyObject)[] = Array.isArray(keys) ? keys : "keys" in keys ? keys.keys : [keys];
  return list.flatMap((key) => {
    if (typeof (key as KeyObject).asymmetricKeyType === "string") return [key as KeyObject];
    const jwk = key as JwkLike;
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") return [];
    return [createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" })];
  });
}

export interface VerifyWebhookOptions {
  /** The request headers as received (a fetch `Headers` or Node's `req.headers`). */
  headers: HeaderSource;
  /** The raw request body, byte for byte, before any JSON parsing. */
  body: string | Uint8Array;
  /** The JWKS from GET /.well-known/webhook-keys, one JWK, or public KeyObjects. */
  keys: WebhookVerificationKeys;
  /** Reject timestamps further than this from `now` (replay protection). Default 5 minutes. */
  toleranceSeconds?: number;
  now?: Date;
}

/**
 * Verifies a webhook this service sent: for app developers, and for our own tests. Returns true
 * only when the timestamp is within the tolerance and one of the `v1a` signatures in the header
 * (they are space-separated) verifies under one of the keys. Dedupe on `webhook-id`: delivery is
 * at least once.
 *
 *   const ok = verifyWebhookSignature({ headers: req.headers, body: rawBody, keys: await (await fetch(`${base}/.well-known/webhook-keys`)).json() });
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  const id = header(options.headers, "webhook-id");
  const timestampText = header(options.headers, "webhook-timestamp");
  const signatures = header(options.headers, "webhook-signature");
  if (!id || !timestampText || !signatures || !/^\d{1,12}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const content = signedContent({ id, timestamp: timestampText, body: options.body });
  const keys = publicKeys(options.keys);
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1a" || !value) continue;
    const signature = Buffer.from(value, "base64");
    if (signature.length !== 64) continue;
    if (keys.some((key) => verify(null, content, key, signature))) return true;
  }
  return false;
}
