import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";

/**
 * The Ed25519 key pair that signs webhooks (Standard Webhooks `v1a`, and `x-ghl-signature`). Kept in SigningKey with
 * use "webhook"; the private key is encrypted with the server secret. Created on first need under
 * a PostgreSQL advisory lock, so instances starting together on one database agree on one key.
 */

export const WEBHOOK_KEY_USE = "webhook";
export const WEBHOOK_KEY_ALG = "EdDSA";
/** Retired keys stay published this long, for receivers still verifying what they signed. */
const RETIRED_KEY_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

/** SPEC.md: `{"kty":"OKP","crv":"Ed25519","x","kid"}`, those members and no others. */
export interface PublishedWebhookKey extends Ed25519PublicJwk {
  kid: string;
}

export interface WebhookSigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
}

const holder = globalThis as typeof globalThis & { __webhookSigningKey?: Promise<WebhookSigningKey> };

/** The key new webhooks are signed with; loaded or created once per process. */
export function currentWebhookSigningKey(): Promise<WebhookSigningKey> {
  if (!holder.__webhookSigningKey) {
    holder.__webhookSigningKey = ensureWebhookSigningKey().catch((error) => {
      holder.__webhookSigningKey = undefined; // try again next time
      throw error;
    });
  }
  return holder.__webhookSigningKey;
}

/** For tests. */
export function resetWebhookSigningKeyCache(): void {
  holder.__webhookSigningKey = undefined;
}

/** RFC 7638 thumbprint: a kid derived from the key itself. */
function thumbprint(jwk: Ed25519PublicJwk): string {
  return createHash("sha256")
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest("base64url");
}

/** Loads the active webhook key, creating it if there is none (race-safe across instances). */
export async function ensureWebhookSigningKey(): Promise<WebhookSigningKey> {
  const existing = await activeKeyRow();
  if (existing) return fromRow(existing);
  const row = await db().$transaction(async (tx) => {
    // Serialises creators on this database; the lock ends with the transaction.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook-signing-key'))`;
    const again = await tx.signingKey.findFirst({
      where: { use: WEBHOOK_KEY_USE, retiredAt: null },
      orderBy: [{ createdAt: "asc" }, { kid: "asc" }],
    });
    if (again) return again;
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const jwk = publicKey.export({ format: "jwk" }) as Ed25519PublicJwk;
    const publicJwk: Ed25519PublicJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x };
    return tx.signingKey.create({
      data: {
        kid: thumbprint(publicJwk),
        alg: WEBHOOK_KEY_ALG,
        use: WEBHOOK_KEY_USE,
        publicJwk: { ...publicJwk },
        privateKeyEncrypted: encrypt(privateKey.export({ format: "pem", type: "pkcs8" }).toString()),
      },
    });
  });
  return fromRow(row);
}

function activeKeyRow() {
  // The oldest active key wins, so every instance picks the same one even if two ever existed.
  return db().signingKey.findFirst({
    where: { use: WEBHOOK_KEY_USE, retiredAt: null },
    orderBy: [{ createdAt: "asc" }, { kid: "asc" }],
  });
}

function fromRow(row: { kid: string; publicJwk: unknown; privateKeyEncrypted: string }): WebhookSigningKey {
  return {
    kid: row.kid,
    privateKey: createPrivateKey(decrypt(row.privateKeyEncrypted)),
    publicJwk: row.publicJwk as Ed25519PublicJwk,
  };
}

/**
 * The current key's public half as an SPKI PEM, served at /.well-known/webhook-public-key.pem and
 * on the app pages: the form the platform's SDK takes for `x-ghl-signature`.
 */
export async function webhookPublicKeyPem(): Promise<string> {
  const key = await currentWebhookSigningKey();
  return createPublicKey(key.privateKey).export({ format: "pem", type: "spki" }).toString();
}

/** The JWKS served at /.well-known/webhook-keys: the active key and recently retired ones. */
export async function webhookKeysJwks(now = new Date()): Promise<{ keys: PublishedWebhookKey[] }> {
  await currentWebhookSigningKey(); // a fresh install publishes its key before the first webhook
  const rows = await db().signingKey.findMany({
    where: {
      use: WEBHOOK_KEY_USE,
      OR: [{ retiredAt: null }, { retiredAt: { gt: new Date(now.getTime() - RETIRED_KEY_GRACE_MS) } }],
    },
    orderBy: [{ createdAt: "asc" }, { kid: "asc" }],
  });
  return {
    keys: rows.map((row) => {
      const jwk = row.publicJwk as unknown as Ed25519PublicJwk;
      return { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: row.kid };
    }),
  };
}
