// One file over 250 lines on purpose: the key cache, lazy rotation and the JWKS share one cache and
// one advisory lock, and reading them apart would hide the order that keeps instances consistent.
import { createPrivateKey, type KeyObject, randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { currentMillis } from "@/lib/clock";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { type Db, db, type Tx } from "@/lib/db/client";
import { tableChangeMarker } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";

/**
 * ES256 key pairs that sign access tokens. They live in the SigningKey table (use "access_token"),
 * private JWK encrypted with the server secret, so every instance sharing a database signs with the
 * same key and verifies every other instance's tokens. The newest unretired key signs; a retired key
 * stays published (and accepted) until the last token it signed has expired.
 *
 * Rotation (`signing-key:rotate`, or by itself every SIGNING_KEY_ROTATION_DAYS, noticed when a
 * token is about to be signed) is decided in the database under an advisory lock, so it happens
 * once however many instances notice together. Each instance caches the keys; the SigningKey
 * trigger's `NOTIFY token_state` (payload "SigningKey") makes every instance reload them at once,
 * and while that channel is down a 5-minute TTL bounds how long an instance may sign with a key
 * another one has retired. The retired key's grace period covers that TTL too.
 */

export const ACCESS_TOKEN_KEY_USE = "access_token";
const ALG = "ES256";
/** ACCESS_TOKEN_TTL_SECONDS of access-token.ts (a test keeps them equal; importing it would be circular). */
export const LONGEST_ACCESS_TOKEN_MS = 86_399_000;
/** How long an instance trusts its cached key list when it cannot hear of a rotation elsewhere. */
const CACHE_TTL_MS = 5 * 60_000;
/** Clocks of instances and clients may disagree by this much. */
const CLOCK_SKEW_MS = 60_000;
/**
 * A retired key stays published and accepted this long after its retirement: an instance that did
 * not hear of the rotation may still sign with it for one cache TTL, and each token lives a day.
 */
export const RETIRED_KEY_GRACE_MS = LONGEST_ACCESS_TOKEN_MS + CACHE_TTL_MS + CLOCK_SKEW_MS;
const DAY_MS = 86_400_000;
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
  /** A node:crypto key: access-token.ts signs with it synchronously (see signCompact there). */
  privateKey: KeyObject;
  createdAt: Date;
}

export interface SigningKeyRotation {
  kid: string;
  /** The key it replaced; null when there was none. */
  previousKid: string | null;
}

interface Cache {
  /** When the load began (Date.now()): a change committed after it may be missing. */
  loadedAt: number;
  /** `tableChangeMarker("SigningKey")` when the load began; undefined when nothing listened. */
  marker: string | undefined;
  keys: Map<string, PublicSigningKey>;
  active?: ActiveSigningKey;
}

const holder = globalThis as typeof globalThis & {
  __accessTokenKeys?: Cache;
  __accessTokenKeysLoading?: Promise<Cache>;
  __accessTokenKeyRotating?: Promise<unknown>;
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
  return { kid: row.kid, privateKey: createPrivateKey({ key: jwk, format: "jwk" }), createdAt: row.createdAt };
}

/** A new key pair as a SigningKey row (not stored). Exported for tests. */
export async function newKeyRow(now: Date) {
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
  const loadedAt = currentMillis();
  const marker = tableChangeMarker("SigningKey");
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
  return { loadedAt, marker, keys, active: await toActive(activeRow) };
}

/** Whether the cached keys may answer: nothing changed since the load, as far as this instance can hear. */
function fresh(current: Cache): boolean {
  if (currentMillis() - current.loadedAt >= CACHE_TTL_MS) return false;
  const marker = tableChangeMarker("SigningKey");
  return marker === undefined || marker === current.marker;
}

async function cache(options: { force?: boolean; now?: Date } = {}): Promise<Cache> {
  const current = holder.__accessTokenKeys;
  if (current && !options.force && fresh(current)) return current;
  // A forced reload must not take the answer of a load that began before the change it follows.
  if (options.force) await holder.__accessTokenKeysLoading?.catch(() => {});
  // One load at a time per process; concurrent callers share it.
  holder.__accessTokenKeysLoading ??= load(options.now ?? new Date()).finally(() => {
    holder.__accessTokenKeysLoading = undefined;
  });
  const loaded = await holder.__accessTokenKeysLoading;
  holder.__accessTokenKeys = loaded;
  return loaded;
}

/** Whether `key` has signed for SIGNING_KEY_ROTATION_DAYS by `now` (never when that is 0). */
export function rotationDue(key: { createdAt: Date }, now: Date, days = env().SIGNING_KEY_ROTATION_DAYS): boolean {
  return days > 0 && key.createdAt.getTime() + days * DAY_MS <= now.getTime();
}

/**
 * The key that signs new access tokens; when it is due for its automatic rotation, this instance
 * asks the database to rotate (which does so once, whoever asks first). Call it before opening a
 * transaction: on the embedded database a query outside the open transaction would wait for it.
 */
export async function activeSigningKey(now: Date = new Date()): Promise<ActiveSigningKey> {
  const known = activeSigningKeyNow(now);
  if (known) return known;
  let { active } = await cache({ now });
  if (active && rotationDue(active, now)) {
    // One request per process asks; the others wait for its answer.
    holder.__accessTokenKeyRotating ??= rotateIfDue(now).finally(() => {
      holder.__accessTokenKeyRotating = undefined;
    });
    await holder.__accessTokenKeyRotating;
    ({ active } = await cache({ now }));
  }
  if (!active) throw new Error("No active signing key.");
  return active;
}

/**
 * `activeSigningKey` without waiting: the key when the cached keys may answer and it is not due for
 * rotation, else undefined (then await `activeSigningKey`). Every grant asks, so the common answer
 * costs no promise.
 */
export function activeSigningKeyNow(now: Date): ActiveSigningKey | undefined {
  const current = holder.__accessTokenKeys;
  const active = current && fresh(current) ? current.active : undefined;
  return active && !rotationDue(active, now) ? active : undefined;
}

/** Rotates when still due, then reloads. A failure leaves the current key signing (tried again on the next token). */
async function rotateIfDue(now: Date): Promise<void> {
  try {
    const rotation = await rotateInDatabase(db(), now, { onlyIfDue: true });
    if (rotation) log.info("rotated access-token signing key (automatic)", { ...rotation });
  } catch (error) {
    log.warn("automatic signing-key rotation failed; the current key keeps signing", { error: describeError(error) });
  }
  await cache({ force: true, now });
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
 * Rotates in the database: retires the signing key and creates its successor, in one transaction
 * under the advisory lock, so callers on every instance take turns. With `onlyIfDue` it rotates
 * only when the newest key is still due when the lock is held (automatic rotation: the first
 * caller rotates, the others find the new key and do nothing, so it happens once); otherwise
 * always (the operator). Keys whose every token has expired are deleted on the way. `client` is a
 * parameter so tests can race two instances' clients.
 */
export async function rotateInDatabase(
  client: Db,
  now: Date,
  options: { onlyIfDue?: boolean; rotationDays?: number } = {},
): Promise<SigningKeyRotation | undefined> {
  return client.$transaction(async (tx) => {
    await lockKeys(tx);
    const current = await tx.signingKey.findFirst({
      where: activeWhere,
      orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
      select: { kid: true, createdAt: true },
    });
    if (options.onlyIfDue && (!current || !rotationDue(current, now, options.rotationDays))) return undefined;
    const row = await newKeyRow(now);
    await tx.signingKey.updateMany({ where: activeWhere, data: { retiredAt: now } });
    await tx.signingKey.create({ data: row });
    await tx.signingKey.deleteMany({
      where: { use: ACCESS_TOKEN_KEY_USE, retiredAt: { lt: new Date(now.getTime() - RETIRED_KEY_GRACE_MS) } },
    });
    return { kid: row.kid, previousKid: current?.kid ?? null };
  });
}

/**
 * `signing-key:rotate`: new access tokens are signed with a new key at once (this instance
 * reloads now; the others on the SigningKey notification); the previous key stays published and
 * accepted until every token it signed has expired.
 */
export async function rotateSigningKey(now = new Date()): Promise<SigningKeyRotation> {
  const rotation = (await rotateInDatabase(db(), now)) as SigningKeyRotation;
  log.info("rotated access-token signing key", { ...rotation });
  await cache({ force: true, now });
  return rotation;
}

/** For tests: forget the cached keys. */
export function resetSigningKeyCache(): void {
  holder.__accessTokenKeys = undefined;
}
