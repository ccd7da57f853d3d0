import { createHmac, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * The signatures of one webhook attempt, so that the verifiers app developers already use work:
 *   webhook-id: <event id>            (the same on every retry: receivers dedupe on it)
 *   webhook-timestamp: <unix seconds> (of this attempt)
 *   webhook-signature: v1,<HMAC> [v1,<HMAC under the previous secret>] v1a,<Ed25519> [v1a,…]
 *     Standard Webhooks (https://www.standardwebhooks.com/) over "<id>.<timestamp>.<body>": `v1` is
 *     HMAC-SHA256 keyed with the base64-decoded part of the app's `whsec_` secret (what the
 *     `standardwebhooks` library checks), `v1a` is Ed25519 under the platform's key (public keys at
 *     GET /.well-known/webhook-keys).
 *   x-ghl-signature: <base64 Ed25519 of the body bytes alone>, under one platform key (during a key
 *     rotation's overlap, the old one: signing-key.ts) (what the platform's own SDK checks; PEM at
 *     GET /.well-known/webhook-public-key.pem).
 * where body is the exact bytes sent.
 */

export interface WebhookSignatureInput {
  id: string;
  /** Unix seconds. */
  timestamp: number | string;
  /** The exact request body. */
  body: string | Uint8Array;
}

export interface WebhookSigningMaterial {
  /** The app's `whsec_…` secrets, current first: one `v1,` signature each (two during a rotation). */
  secrets: readonly string[];
  /** Ed25519 private keys, newest first: one `v1a,` signature each (several during a key rotation). */
  keys: readonly KeyObject[];
  /** The key of `x-ghl-signature` (the PEM receivers pin); defaults to the first of `keys`. */
  platformKey?: KeyObject;
}

function signedContent({ id, timestamp, body }: WebhookSignatureInput): Buffer {
  return Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), Buffer.from(body)]);
}

/** The HMAC key of a Standard Webhooks secret: the base64 after `whsec_`. */
function hmacKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
  if (key.length === 0) throw new Error("A webhook secret must not be empty.");
  return key;
}

/** The `webhook-signature` value for one attempt: every `v1` signature, then every `v1a` one. */
export function signWebhook(input: WebhookSignatureInput, material: WebhookSigningMaterial): string {
  const content = signedContent(input);
  return [
    ...material.secrets.map((secret) => `v1,${createHmac("sha256", hmacKey(secret)).update(content).digest("base64")}`),
    ...material.keys.map((key) => `v1a,${sign(null, content, key).toString("base64")}`),
  ].join(" ");
}

/** `x-ghl-signature`: Ed25519 over the body bytes alone, under the current key. */
export function platformSignature(body: string | Uint8Array, key: KeyObject): string {
  return sign(null, Buffer.from(body), key).toString("base64");
}

/** The signature headers of one attempt (see the module comment). */
export function webhookSignatureHeaders(
  input: WebhookSignatureInput,
  material: WebhookSigningMaterial,
): Record<string, string> {
  const currentKey = material.platformKey ?? material.keys[0];
  if (!currentKey) throw new Error("A webhook is signed with at least one Ed25519 key.");
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestamp),
    "webhook-signature": signWebhook(input, material),
    "x-ghl-signature": platformSignature(input.body, currentKey),
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
