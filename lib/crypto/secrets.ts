import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";
import { serverSecret } from "@/lib/env";
import { pooledRandomBytes } from "./random-pool";

/**
 * Every secret we issue (client secrets, codes, refresh tokens, private-integration tokens) is
 * stored only as HMAC-SHA-256 under a key derived from SERVER_SECRET, so a database dump alone
 * cannot be used to mint or verify tokens.
 */

const keyCache = new Map<string, Buffer>();

/** A 32-byte key for one purpose, derived from the server secret with HKDF. */
export function derivedKey(purpose: string, secret = serverSecret()): Buffer {
  const cacheKey = `${purpose}\u0000${secret}`;
  let key = keyCache.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "token-service", purpose, 32));
    keyCache.set(cacheKey, key);
  }
  return key;
}

/**
 * The key of `hashSecret` and the server secret it was derived from. A refresh hashes three
 * secrets: remembering the key spares each the lookup by `${purpose}\0${secret}` (a new string
 * built and hashed every call); comparing the secret keeps it right when the secret changes (tests).
 */
let secretHashKey: { serverSecret: string; key: Buffer } | undefined;

/** The keyed hash stored in place of a secret (hex). */
export function hashSecret(secret: string): string {
  const current = serverSecret();
  if (secretHashKey?.serverSecret !== current)
    secretHashKey = { serverSecret: current, key: derivedKey("secret-hash", current) };
  return createHmac("sha256", secretHashKey.key).update(secret, "utf8").digest("hex");
}

/** Constant-time comparison of a presented secret with a stored keyed hash. */
export function secretMatchesHash(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time equality of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** A URL-safe random secret of `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return pooledRandomBytes(bytes).toString("base64url");
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

export { randomUUID };

/** AES-256-GCM with a key derived from the server secret; for private keys kept in the database. */
export function encrypt(plaintext: string, purpose = "at-rest-encryption"): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", derivedKey(purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(
    ".",
  );
}

export function decrypt(sealed: string, purpose = "at-rest-encryption"): string {
  const parts = sealed.split(".");
  const [version, iv, tag, body] = parts;
  // The body may be empty (an empty text sealed); nothing else may be, and nothing may follow it.
  if (parts.length !== 4 || version !== "v1" || !iv || !tag || body === undefined) {
    throw new Error("Unrecognised encrypted value.");
  }
  const decipher = createDecipheriv("aes-256-gcm", derivedKey(purpose), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/** The last four characters, for a display hint; never more of a secret. */
export function lastFour(secret: string): string {
  return secret.slice(-4);
}
