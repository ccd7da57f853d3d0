// One file though over 250 lines: creation, rotation, the per-instance cache and the overlap rule
// (which key signs when) are one lifecycle of the same rows, read best in one place.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { decrypt, encrypt } from "@/lib/crypto/secrets";
import { type Db, db, type Tx } from "@/lib/db/client";
import { tableChangeMarker } from "@/lib/db/read-cache";
import { log } from "@/lib/log";

/**
 * The platform's Ed25519 webhook keys (Standard Webhooks `v1a`, and `x-ghl-signature`). Kept in
 * SigningKey with use "webhook"; the private key is encrypted with the server secret. The first key
 * is created on first need under a PostgreSQL advisory lock, so instances starting together agree.
 *
 * Rotation (`webhook-key:rotate`) is decided in the database under the same lock: the active key is
 * retired and a new one created, once per call however many instances run. For
 * WEBHOOK_KEY_OVERLAP_MS after a rotation the retired key keeps signing beside the new one:
 * - `webhook-signature` carries a `v1a,` signature under every key still signing, and
 *   GET /.well-known/webhook-keys publishes them all, so a receiver holding either key verifies;
 * - `x-ghl-signature` holds one signature, and the platform's SDK is pinned to one PEM, so it stays
 *   under the OLDEST key still signing (the PEM at /.well-known/webhook-public-key.pem is that
 *   key's) until its overlap ends, then the next key takes over. The app page shows the next PEM
 *   and the moment it takes over, so pinned receivers get the overlap as notice.
 * After the overlap the old key no longer signs nor is published; the next rotation deletes it.
 *
 * Each instance caches the rows; the SigningKey trigger's `NOTIFY token_state` (payload
 * "SigningKey") makes it reload at once, and while that channel is down a 5-minute TTL bounds the
 * delay. A late reload is harmless: the old key keeps signing for the whole overlap.
 */

export const WEBHOOK_KEY_USE = "webhook";
export const WEBHOOK_KEY_ALG = "EdDSA";
/** How long a replaced key keeps signing (and stays published) after `webhook-key:rotate`. */
export const WEBHOOK_KEY_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
/** How long an instance trusts its cached keys when it cannot hear of a rotation elsewhere. */
const CACHE_TTL_MS = 5 * 60_000;
const LOCK = "webhook-signing-key";

export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

/** SPEC.md: `{"kty":"OKP","crv":"Ed25519","x","kid"}`, those members and no others. */
export interface PublishedWebhookKey extends Ed25519PublicJwk {
  kid: string;
}

export interface WebhookKeyRow {
  kid: string;
  publicJwk: unknown;
  privateKeyEncrypted: string;
  createdAt: Date;
  retiredAt: Date | null;
}

export interface WebhookSigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
  createdAt: Date;
  /** When a rotation replaced it; null for the newest key. */
  retiredAt: Date | null;
}

/** Which keys sign at one moment (see the module comment). */
export interface WebhookKeysAt {
  /** Every key that signs `v1a` and is published, newest first. */
  signing: WebhookSigningKey[];
  /** The key of `x-ghl-signature` and of the PEM: the oldest key still signing. */
  platform: WebhookSigningKey;
  /** During an overlap: the key that takes `x-ghl-signature` over next, and when. */
  next?: { key: WebhookSigningKey; takesOverAt: Date };
}

export interface WebhookKeyRotation {
  kid: string;
  /** The key it replaced; null when there was none. */
  previousKid: string | null;
}

/** Whether a key signs at `now`: it is the newest, or it was replaced less than the overlap ago. */
export function signsAt(key: { retiredAt: Date | null }, now: Date): boolean {
  return key.retiredAt === null || key.retiredAt.getTime() + WEBHOOK_KEY_OVERLAP_MS > now.getTime();
}

const retiredOrder = (key: { retiredAt: Date | null }) => key.retiredAt?.getTime() ?? Number.POSITIVE_INFINITY;

/** The rule, over loaded keys and a clock. */
export function webhookKeysAt(keys: readonly WebhookSigningKey[], now: Date): WebhookKeysAt {
  const signing = keys
    .filter((key) => signsAt(key, now))
    // Newest first by retirement (the order of rotations), not by creation: clocks may disagree.
    .sort((a, b) => retiredOrder(b) - retiredOrder(a) || b.createdAt.getTime() - a.createdAt.getTime());
  const platform = signing[signing.length - 1];
  if (!platform) throw new Error("No webhook signing key.");
  const following = signing[signing.length - 2];
  const next =
    following && platform.retiredAt
      ? { key: following, takesOverAt: new Date(platform.retiredAt.getTime() + WEBHOOK_KEY_OVERLAP_MS) }
      : undefined;
  return { signing, platform, next };
}

interface Cache {
  loadedAt: number;
  marker: string | undefined;
  keys: WebhookSigningKey[];
}

const holder = globalThis as typeof globalThis & {
  __webhookKeys?: Cache;
  __webhookKeysLoading?: Promise<Cache>;
};

/** RFC 7638 thumbprint: a kid derived from the key itself. */
function thumbprint(jwk: Ed25519PublicJwk): string {
  return createHash("sha256")
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest("base64url");
}

function newKeyRow(now?: Date) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" }) as Ed25519PublicJwk;
  const publicJwk: Ed25519PublicJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x };
  return {
    kid: thumbprint(publicJwk),
    alg: WEBHOOK_KEY_ALG,
    use: WEBHOOK_KEY_USE,
    publicJwk: { ...publicJwk },
    privateKeyEncrypted: encrypt(privateKey.export({ format: "pem", type: "pkcs8" }).toString()),
    ...(now ? { createdAt: now } : {}),
  };
}

async function lockKeys(tx: Tx): Promise<void> {
  // Serialises creators and rotators on this database; the lock ends with the transaction.
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('${LOCK}'))`);
}

const activeWhere = { use: WEBHOOK_KEY_USE, retiredAt: null } as const;

/** The newest unretired key, creating the first one when there is none (race-safe across instances). */
export async function ensureWebhookSigningKey(): Promise<WebhookSigningKey> {
  const order = [{ createdAt: "desc" as const }, { kid: "desc" as const }];
  const existing = await db().signingKey.findFirst({ where: activeWhere, orderBy: order });
  if (existing) return fromRow(existing);
  const row = await db().$transaction(async (tx) => {
    await lockKeys(tx);
    const again = await tx.signingKey.findFirst({ where: activeWhere, orderBy: order });
    if (again) return again;
    return tx.signingKey.create({ data: newKeyRow() });
  });
  return fromRow(row);
}

function fromRow(row: WebhookKeyRow): WebhookSigningKey {
  return {
    kid: row.kid,
    privateKey: createPrivateKey(decrypt(row.privateKeyEncrypted)),
    publicJwk: row.publicJwk as Ed25519PublicJwk,
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}

async function load(): Promise<Cache> {
  const loadedAt = Date.now();
  const marker = tableChangeMarker("SigningKey");
  await ensureWebhookSigningKey();
  // Every webhook row: rotations delete those past their overlap, so there are few.
  const rows = await db().signingKey.findMany({ where: { use: WEBHOOK_KEY_USE } });
  return { loadedAt, marker, keys: rows.map(fromRow) };
}

function fresh(current: Cache): boolean {
  if (Date.now() - current.loadedAt >= CACHE_TTL_MS) return false;
  const marker = tableChangeMarker("SigningKey");
  return marker === undefined || marker === current.marker;
}

async function cache(force = false): Promise<Cache> {
  const current = holder.__webhookKeys;
  if (current && !force && fresh(current)) return current;
  if (force) await holder.__webhookKeysLoading?.catch(() => {});
  holder.__webhookKeysLoading ??= load().finally(() => {
    holder.__webhookKeysLoading = undefined;
  });
  const loaded = await holder.__webhookKeysLoading;
  holder.__webhookKeys = loaded;
  return loaded;
}

/** The keys that sign a webhook sent at `now`. */
export async function webhookSigningKeys(now: Date = new Date()): Promise<WebhookKeysAt> {
  return webhookKeysAt((await cache()).keys, now);
}

/** The key of `x-ghl-signature` and of the PEM at `now`. */
export async function currentWebhookSigningKey(now: Date = new Date()): Promise<WebhookSigningKey> {
  return (await webhookSigningKeys(now)).platform;
}

/** For tests: forget the cached keys. */
export function resetWebhookSigningKeyCache(): void {
  holder.__webhookKeys = undefined;
}

/** A key's public half as an SPKI PEM: the form the platform's SDK takes for `x-ghl-signature`. */
export function publicKeyPem(key: WebhookSigningKey): string {
  return createPublicKey(key.privateKey).export({ format: "pem", type: "spki" }).toString();
}

/** The PEM served at /.well-known/webhook-public-key.pem: the key `x-ghl-signature` is under now. */
export async function webhookPublicKeyPem(now: Date = new Date()): Promise<string> {
  return publicKeyPem(await currentWebhookSigningKey(now));
}

/** The JWKS served at /.well-known/webhook-keys: every key that signs `v1a` now. */
export async function webhookKeysJwks(now: Date = new Date()): Promise<{ keys: PublishedWebhookKey[] }> {
  const { signing } = await webhookSigningKeys(now);
  return { keys: signing.map(({ kid, publicJwk }) => ({ kty: "OKP", crv: "Ed25519", x: publicJwk.x, kid })) };
}

/**
 * Rotates in the database: retires the active key and creates its successor in one transaction
 * under the advisory lock, so concurrent callers on any instance take turns (each rotation
 * replaces the key the previous one made; there is never more than one active key). Keys whose
 * overlap ended are deleted on the way. `client` is a parameter so tests can race two instances.
 */
export async function rotateWebhookKeyInDatabase(client: Db, now: Date): Promise<WebhookKeyRotation> {
  return client.$transaction(async (tx) => {
    await lockKeys(tx);
    const current = await tx.signingKey.findFirst({
      where: activeWhere,
      orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
      select: { kid: true },
    });
    const row = newKeyRow(now);
    await tx.signingKey.updateMany({ where: activeWhere, data: { retiredAt: now } });
    await tx.signingKey.create({ data: row });
    await tx.signingKey.deleteMany({
      where: { use: WEBHOOK_KEY_USE, retiredAt: { lte: new Date(now.getTime() - WEBHOOK_KEY_OVERLAP_MS) } },
    });
    return { kid: row.kid, previousKid: current?.kid ?? null };
  });
}

/**
 * `webhook-key:rotate`: the new key signs `v1a` at once beside the old one; the old one keeps
 * signing (and `x-ghl-signature`) for WEBHOOK_KEY_OVERLAP_MS. This instance reloads now, the
 * others on the SigningKey notification.
 */
export async function rotateWebhookKey(now: Date = new Date()): Promise<WebhookKeyRotation> {
  const rotation = await rotateWebhookKeyInDatabase(db(), now);
  log.info("rotated webhook signing key", { ...rotation });
  await cache(true);
  return rotation;
}
