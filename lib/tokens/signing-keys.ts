import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { log } from "@/lib/log";

/**
 * ES256 key pairs that sign access tokens. They live in the SigningKey table (use "access_token"),
 * private JWK encrypted with the server secret, so every instance sharing a database signs with the
 * same key and verifies every other instance's tokens. The newest unretired key signs; a retired key
 * stays published (and accepted) until the last token it signed has expired.
 */

export const ACCESS_TOKEN_KEY_USE = "access_token";
const ALG = "ES256";
/** Access tokens live 86399 s; a retired key must outlive them. */
export const RETIRED_KEY_GRACE_MS = 86_400_000;
/** How long an instance trusts its cached key list before looking for a rotation elsewhere. */
const CACHE_TTL_MS = 5 * 60_000;
/** At most one reload a second for unknown kids, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 1_000;
const ENCRYPTION_PURPOSE = "signing-key";

export interface PublicSigningKey {
  kid: string;
  publicJwk: JWK;
  key: CryptoKey;
  createdAt: Date;
  retiredAt: Date | null;
}

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

interface Cache {
  loadedAt: number;
  keys: Map<string, PublicSigningKey>;
  active?: ActiveSigningKey;
}

const holder = globalThis as typeof globalThis & {
  __accessTokenKeys?: Cache;
  __accessTokenKeysLoading?: Promise<Cache>;
};

interface KeyRow {
  kid: string;
  publicJwk: unknown;
  privateKeyEncrypted: string;
  createdAt: Date;
  retiredAt: Date | null;
}

async function toPublic(row: KeyRow): Promise<PublicSigningKey> {
  const publicJwk = row.publicJwk as JWK;
  const key = (await importJWK({ ...publicJwk, alg: ALG }, ALG)) as CryptoKey;
  return { kid: row.kid, publicJwk, key, createdAt: row.createdAt, retiredAt: row.retiredAt };
}

async function toActive(row: KeyRow): Promise<ActiveSigningKey> {
  const jwk = JSON.parse(decrypt(row.privateKeyEncrypted, ENCRYPTION_PURPOSE)) as JWK;
  return { kid: row.kid, privateKey: (await importJWK(jwk, ALG)) as CryptoKey };
}

async function newKeyRow(now: Date) {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: "sig" };
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: ALG,
    use: ACCESS_TOKEN_KEY_USE,
    publicJwk,
    privateKeyEncrypted: encrypt(JSON.stringify(privateJwk), ENCRYPTION_PURPOSE),
    createdAt: now,
  };
}

/**
 * Serialises key creation across instances: a transaction-scoped advisory lock, so two instances
 * starting together on one PostgreSQL create one key, not two.
 */
async function lockKeys(tx: Tx): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('signing-key:${ACCESS_TOKEN_KEY_USE}'))`);
}

const activeWhere = { use: ACCESS_TOKEN_KEY_USE, retiredAt: null } as const;

/** The newest unretired key, creating the first one when there is none. Exported for tests. */
export async function ensureActiveKey(): Promise<KeyRow> {
  const existing = await db().signingKey.findFirst({
    where: activeWhere,
    orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
  });
  if (existing) return existing;
  return db().$transaction(async (tx) => {
    await lockKeys(tx);
    const again = await tx.signingKey.findFirst({
      where: activeWhere,
      orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
    });
    if (again) return again;
    const created = await tx.signingKey.create({ data: await newKeyRow(new Date()) });
    log.info("created access-token signing key", { kid: created.kid });
    return created;
  });
}

async function load(now: Date): Promise<Cache> {
  const activeRow = await ensureActiveKey();
  const rows = await db().signingKey.findMany({
    where: {
      use: ACCESS_TOKEN_KEY_USE,
      OR: [{ retiredAt: null }, { retiredAt: { gt: new Date(now.getTime() - RETIRED_KEY_GRACE_MS) } }],
    },
    orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
  });
  const keys = new Map<string, PublicSigningKey>();
  for (const row of rows) keys.set(row.kid, await toPublic(row));
  return { loadedAt: Date.now(), keys, active: await toActive(activeRow) };
}

async function cache(options: { force?: boolean; now?: Date } = {}): Promise<Cache> {
  const current = holder.__accessTokenKeys;
  if (current && !options.force && Date.now() - current.loadedAt < CACHE_TTL_MS) return current;
  // One load at a time per process; concurrent callers share it.
  holder.__accessTokenKeysLoading ??= load(options.now ?? new Date()).finally(() => {
    holder.__accessTokenKeysLoading = undefined;
  });
  const loaded = await holder.__accessTokenKeysLoading;
  holder.__accessTokenKeys = loaded;
  return loaded;
}

/**
 * The key that signs new access tokens. Call it before opening a transaction: on the embedded
 * database a query outside the open transaction would wait for it.
 */
export async function activeSigningKey(): Promise<ActiveSigningKey> {
  const { active } = await cache();
  if (!active) throw new Error("No active signing key.");
  return active;
}

/** The public key of `kid`, reloading once when another instance may have rotated. */
export async function verificationKey(kid: string): Promise<PublicSigningKey | undefined> {
  const current = await cache();
  const found = current.keys.get(kid);
  if (found) return found;
  if (Date.now() - current.loadedAt < UNKNOWN_KID_RELOAD_MS) return undefined;
  return (await cache({ force: true })).keys.get(kid);
}

/** The JWKS of every key whose tokens may still be alive (RFC 7517), for /.well-known/jwks.json. */
export async function accessTokenJwks(now = new Date()): Promise<{ keys: JWK[] }> {
  const { keys } = await cache({ now });
  const live = [...keys.values()].filter(
    (k) => !k.retiredAt || k.retiredAt.getTime() > now.getTime() - RETIRED_KEY_GRACE_MS,
  );
  return { keys: live.map((k) => ({ ...k.publicJwk })) };
}

/**
 * Starts signing with a new key; the previous ones keep verifying for a day. For an operator
 * command or a scheduled job; other instances pick the new key up within their cache TTL, and
 * meanwhile verify it through the unknown-kid reload.
 */
export async function rotateSigningKey(now = new Date()): Promise<string> {
  const kid = await db().$transaction(async (tx) => {
    await lockKeys(tx);
    const row = await newKeyRow(now);
    await tx.signingKey.updateMany({ where: activeWhere, data: { retiredAt: now } });
    await tx.signingKey.create({ data: row });
    return row.kid;
  });
  log.info("rotated access-token signing key", { kid });
  await cache({ force: true, now });
  return kid;
}

/** For tests: forget the cached keys. */
export function resetSigningKeyCache(): void {
  holder.__accessTokenKeys = undefined;
}
