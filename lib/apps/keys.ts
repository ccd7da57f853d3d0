// Over 250 lines on purpose: what makes a JWK acceptable as an app key, each refusal with its words, and the key list's writes with their audit.
import {
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair as generateJoseKeyPair,
  importJWK,
  type JWK,
} from "jose";
import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { type AppKeySource, Prisma } from "@/lib/generated/prisma/client";
import { answeredOnce, claimedOnce, type IdempotentRequest, personRequest } from "@/lib/idempotency/keys";
import { conflict, forbidden, invalid, notFound } from "@/lib/refusal";
import { webhookUrlSaveProblem } from "@/lib/webhooks/ssrf";
import { canManageApps, loadOwnApp } from "./registry";

/**
 * App keys (SPEC.md › Apps that never lose an install): the public keys an app signs its client
 * assertions with (private_key_jwt, RFC 7523) and so its installation tokens. A developer pastes a
 * public JWK, has a key pair made here (the private key is handed back once, as PKCS#8 PEM, and
 * never stored), or names a JWKS URL (one per app; fetched by the verification,
 * lib/oauth/jwks-fetch.ts, never here). Every change is one transaction with its audit entry, by
 * the app's agency's owners and admins only. Removing a row stops its key at once: the
 * verification consumes an assertion's `jti` in a statement that finds the key's row.
 */

/** The algorithms a key may sign with: one per key type. */
export const appKeyAlgs = ["ES256", "RS256"] as const;
export type AppKeyAlg = (typeof appKeyAlgs)[number];

/** Keys (pasted or generated) an app may hold at once; its JWKS URL is apart. */
export const MAX_APP_KEYS = 10;
/** The longest `kid` accepted from a pasted JWK. */
export const MAX_KID_LENGTH = 200;
const MAX_JWK_TEXT = 20_000;
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;
const MAX_URL_LENGTH = 2000;

/** One row of the app's `Keys` list. */
export interface AppKeyItem {
  id: string;
  source: AppKeySource;
  /** The key's `kid`; null for the JWKS URL. */
  kid: string | null;
  /** Set for the JWKS URL only. */
  jwksUrl: string | null;
  /** ES256 or RS256; null for the JWKS URL (its keys say theirs). */
  alg: AppKeyAlg | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** For the JWKS URL: the `kid` of the key it last signed with. */
  lastUsedKid: string | null;
}

/** A public key's members and the one algorithm it signs with. */
type PublicKey =
  | { kty: "EC"; crv: "P-256"; x: string; y: string; alg: "ES256" }
  | { kty: "RSA"; n: string; e: string; alg: "RS256" };
/** A public JWK as stored: only the public members, its `kid` and `alg`. */
export type StoredPublicJwk = PublicKey & { kid: string };

const example = '{"kty":"EC","crv":"P-256","x":"…","y":"…"}';
const FIELD = { jwk: "jwk", alg: "alg", jwksUrl: "jwksUrl" } as const;
/** Members that only a private or secret key has (RFC 7518 §6.2.2, §6.3.2, §6.4). */
const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

const refuseJwk = (message: string) => invalid(message, FIELD.jwk);

// ---------------------------------------------------------------------------------------------
// Reading a pasted public JWK

const base64url = /^[A-Za-z0-9_-]+$/;

/** The bytes of a base64url member, or a refusal naming it. */
function memberBytes(jwk: Record<string, unknown>, name: string): Buffer {
  const value = jwk[name];
  if (value === undefined) throw refuseJwk(`The key has no "${name}": a complete public key is needed.`);
  if (typeof value !== "string" || !base64url.test(value) || value.length % 4 === 1) {
    throw refuseJwk(`"${name}" is not base64url (letters, digits, - and _ only, without = padding).`);
  }
  return Buffer.from(value, "base64url");
}

/** The number of bits of a big-endian unsigned integer. */
function bitLength(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] ?? 0));
}

function parseJwkText(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (!trimmed) throw refuseJwk(`Paste the public key, a JWK such as ${example}.`);
  if (trimmed.length > MAX_JWK_TEXT) {
    throw refuseJwk(`This is too long for a public key (at most ${MAX_JWK_TEXT.toLocaleString("en")} characters).`);
  }
  if (trimmed.startsWith("-----BEGIN")) {
    throw /PRIVATE KEY/.test(trimmed)
      ? refuseJwk(
          "This is a private key: paste only the public key. Keep the private key on your server and share it with no one.",
        )
      : refuseJwk(`This is a PEM: paste the public key as a JWK (JSON), such as ${example}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw refuseJwk(`This is not JSON: paste the public key as a JWK, such as ${example}.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw refuseJwk(`Paste one JWK, a JSON object such as ${example}.`);
  }
  return parsed as Record<string, unknown>;
}

/** The kid of a pasted key: its own (checked), or undefined to use its thumbprint. */
function ownKid(jwk: Record<string, unknown>): string | undefined {
  if (jwk.kid === undefined) return undefined;
  if (typeof jwk.kid !== "string" || !jwk.kid.trim()) {
    throw refuseJwk('"kid" must be a non-empty string, or leave it out (the key\'s thumbprint becomes its kid).');
  }
  if (jwk.kid.length > MAX_KID_LENGTH) throw refuseJwk(`"kid" is too long: at most ${MAX_KID_LENGTH} characters.`);
  if (!/^[\x20-\x7e]+$/.test(jwk.kid)) {
    throw refuseJwk('"kid" may hold only printable ASCII characters (letters, digits, punctuation, spaces).');
  }
  return jwk.kid;
}

/**
 * A pasted JWK, checked to be a public signing key we accept (EC P-256 for ES256, RSA of 2048 to
 * 8192 bits for RS256) and reduced to its public members, with its `kid` (its own, else its RFC
 * 7638 thumbprint) and `alg`. Every refusal is a sentence for beside the `Public key (JWK)` field.
 */
export async function readPublicJwk(text: string): Promise<StoredPublicJwk> {
  const jwk = parseJwkText(text);
  if (Array.isArray(jwk.keys)) {
    throw refuseJwk("This is a key set (JWKS): paste one key from it, or save its address as the JWKS URL.");
  }
  const secret = privateMembers.filter((name) => name in jwk);
  if (secret.length) {
    const names = secret.map((n) => `"${n}"`).join(", ");
    throw refuseJwk(
      jwk.kty === "oct"
        ? `This is a secret (symmetric) key (it has ${names}): paste an EC P-256 or RSA public key. Never share a secret key.`
        : `This is a private key (it has ${names}): paste only the public key. Keep the private key on your server and share it with no one.`,
    );
  }
  if (jwk.kty === "oct") throw refuseJwk("A symmetric (oct) key cannot be used: paste an EC P-256 or RSA public key.");
  if (jwk.kty === undefined) throw refuseJwk(`The key has no "kty": paste a JWK such as ${example}.`);
  if (jwk.kty !== "EC" && jwk.kty !== "RSA") {
    throw refuseJwk(
      `Key type ${JSON.stringify(jwk.kty).slice(0, 40)} is not accepted: paste an EC P-256 (ES256) or RSA (RS256) public key.`,
    );
  }
  if (jwk.use !== undefined && jwk.use !== "sig") {
    throw refuseJwk(
      `The key is for ${JSON.stringify(jwk.use).slice(0, 40)}, not signatures: use "use":"sig" or leave "use" out.`,
    );
  }
  if (
    jwk.key_ops !== undefined &&
    (!Array.isArray(jwk.key_ops) ||
      !jwk.key_ops.every((op) => typeof op === "string") ||
      !jwk.key_ops.includes("verify"))
  ) {
    throw refuseJwk('The key\'s "key_ops" do not include "verify": a public key here verifies signatures.');
  }
  const kid = ownKid(jwk);
  let key: PublicKey;
  if (jwk.kty === "EC") {
    if (jwk.crv !== "P-256") {
      throw refuseJwk(
        `Curve ${JSON.stringify(jwk.crv ?? null).slice(0, 40)} is not accepted: an EC key must be on P-256 (ES256).`,
      );
    }
    if (jwk.alg !== undefined && jwk.alg !== "ES256") {
      throw refuseJwk(
        `"alg" ${JSON.stringify(jwk.alg).slice(0, 40)} does not fit an EC P-256 key: use ES256 or leave "alg" out.`,
      );
    }
    for (const name of ["x", "y"]) {
      if (memberBytes(jwk, name).length !== 32) throw refuseJwk(`"${name}" must be 32 bytes long for a P-256 key.`);
    }
    key = { kty: "EC", crv: "P-256", x: jwk.x as string, y: jwk.y as string, alg: "ES256" };
  } else {
    if (jwk.alg !== undefined && jwk.alg !== "RS256") {
      throw refuseJwk(
        `"alg" ${JSON.stringify(jwk.alg).slice(0, 40)} does not fit here: an RSA key signs with RS256; use it or leave "alg" out.`,
      );
    }
    const bits = bitLength(memberBytes(jwk, "n"));
    if (bits < MIN_RSA_BITS) {
      throw refuseJwk(`This RSA key has ${bits} bits: use one of at least ${MIN_RSA_BITS} bits.`);
    }
    if (bits > MAX_RSA_BITS) throw refuseJwk(`This RSA key has ${bits} bits: at most ${MAX_RSA_BITS} are accepted.`);
    const e = memberBytes(jwk, "e");
    if (e.length > 8 || bitLength(e) < 2 || ((e.at(-1) ?? 0) & 1) === 0) {
      throw refuseJwk('"e" is not a usable RSA public exponent (usually AQAB, 65537).');
    }
    key = { kty: "RSA", n: jwk.n as string, e: jwk.e as string, alg: "RS256" };
  }
  try {
    await importJWK({ ...key, ext: true } as JWK, key.alg);
  } catch {
    throw refuseJwk(
      key.kty === "EC"
        ? "This is not a valid P-256 public key: its x and y are not a point on the curve."
        : "This RSA public key could not be read: check n and e.",
    );
  }
  return { ...key, kid: kid ?? (await thumbprint(key)) } as StoredPublicJwk;
}

/** The RFC 7638 SHA-256 thumbprint of a public key (base64url). */
function thumbprint(key: PublicKey): Promise<string> {
  return calculateJwkThumbprint(
    key.kty === "EC" ? { kty: "EC", crv: key.crv, x: key.x, y: key.y } : { kty: "RSA", n: key.n, e: key.e },
    "sha256",
  );
}

// ---------------------------------------------------------------------------------------------
// The JWKS URL

/** The JWKS URL's syntax: absolute, https (http too when WEBHOOK_ALLOW_PRIVATE=1), no credentials or fragment. */
function jwksUrlSyntax(raw: string): string {
  const url = raw.trim();
  const refuse = (message: string) => invalid(message, FIELD.jwksUrl);
  if (!url) throw refuse("Enter the JWKS URL, such as https://app.example.com/.well-known/jwks.json.");
  if (url.length > MAX_URL_LENGTH) throw refuse(`Use a JWKS URL of at most ${MAX_URL_LENGTH} characters.`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse("Use an absolute URL such as https://app.example.com/.well-known/jwks.json.");
  }
  const httpAllowed = env().WEBHOOK_ALLOW_PRIVATE;
  if (parsed.protocol !== "https:" && !(httpAllowed && parsed.protocol === "http:")) {
    throw refuse("Use an https JWKS URL: keys are fetched over HTTPS only.");
  }
  if (parsed.username || parsed.password) throw refuse("A JWKS URL cannot contain a user name or password.");
  if (url.includes("#")) throw refuse("A JWKS URL cannot contain a fragment (#…).");
  return url;
}

const jwksWording = {
  field: "JWKS URL",
  rule: "keys are fetched only from public addresses",
  example: "https://app.example.com/.well-known/jwks.json",
};

// ---------------------------------------------------------------------------------------------
// Changes

const keySelect = {
  id: true,
  source: true,
  kid: true,
  jwksUrl: true,
  publicJwk: true,
  createdAt: true,
  lastUsedAt: true,
  lastUsedKid: true,
} satisfies Prisma.AppKeySelect;

function toItem(row: Prisma.AppKeyGetPayload<{ select: typeof keySelect }>): AppKeyItem {
  const alg = (row.publicJwk as { alg?: unknown } | null)?.alg;
  return {
    id: row.id,
    source: row.source,
    kid: row.kid,
    jwksUrl: row.jwksUrl,
    alg: alg === "ES256" || alg === "RS256" ? alg : null,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    lastUsedKid: row.lastUsedKid,
  };
}

/** Refuses at once (before any work) a person who may not manage apps at all. */
function assertMayManageApps(actor: Actor | undefined): void {
  if (actor && !canManageApps(actor, actor.companyId)) {
    throw forbidden("Only the agency's owners and admins can create and change its apps.");
  }
}

/** One change of an app's keys: its app loaded and locked for the actor, in a transaction, under the read cache's rule. */
function changeKeys<T>(
  appId: string,
  actor: Actor | undefined,
  change: (tx: Tx, app: { companyId: string }) => Promise<T>,
): Promise<T> {
  return changeCachedState(() =>
    db().$transaction(async (tx) => {
      const app = await loadOwnApp(tx, appId, actor);
      // Changes of one app's keys one after the other (the limit, one JWKS URL). NO KEY: nothing
      // that references the app waits on it.
      await tx.$executeRaw`SELECT 1 FROM "App" WHERE id = ${appId} FOR NO KEY UPDATE`;
      return change(tx, app);
    }),
  );
}

async function storeKey(
  appId: string,
  jwk: StoredPublicJwk,
  source: "public_key" | "generated",
  actor: Actor | undefined,
  once?: { request: IdempotentRequest; now: Date; answer: (key: AppKeyItem) => unknown },
): Promise<AppKeyItem> {
  try {
    return await changeKeys(appId, actor, (tx, app) =>
      claimedOnce(
        tx,
        once?.request,
        once?.now ?? new Date(),
        () => addKeyRow(tx, app, appId, jwk, source, actor),
        once?.answer,
      ),
    );
  } catch (error) {
    // Two adds of the same kid at once: the unique index decides, and says the same.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw kidTaken(jwk.kid);
    throw error;
  }
}

/** The new key's row, checked against the app's others (kid, same numbers, the limit), and audited. */
async function addKeyRow(
  tx: Tx,
  app: { companyId: string },
  appId: string,
  jwk: StoredPublicJwk,
  source: "public_key" | "generated",
  actor: Actor | undefined,
): Promise<AppKeyItem> {
  const keys = await tx.appKey.findMany({
    where: { appId, kid: { not: null } },
    select: { kid: true, publicJwk: true },
  });
  if (keys.some((k) => k.kid === jwk.kid)) throw kidTaken(jwk.kid);
  const sameKey = await sameKeyAs(jwk, keys);
  if (sameKey) {
    throw conflict(`This key is already on the app, as kid "${sameKey}".`, FIELD.jwk, { kid: sameKey });
  }
  if (keys.length >= MAX_APP_KEYS) {
    throw invalid(
      `An app holds at most ${MAX_APP_KEYS} keys: remove one you no longer use first.`,
      source === "generated" ? FIELD.alg : FIELD.jwk,
    );
  }
  const row = await tx.appKey.create({
    data: { appId, source, kid: jwk.kid, publicJwk: jwk },
    select: keySelect,
  });
  await recordAudit(tx, {
    companyId: app.companyId,
    actorUserId: actor?.id,
    action: "app_key_added",
    targetId: appId,
    details: { keyId: row.id, kid: jwk.kid, source, alg: jwk.alg },
  });
  return toItem(row);
}

const kidTaken = (kid: string) =>
  conflict(`The app already has a key with kid "${kid}": remove it first, or give this key another kid.`, FIELD.jwk, {
    kid,
  });

/** The kid of a stored key with the same public numbers, if any. */
async function sameKeyAs(
  jwk: StoredPublicJwk,
  keys: { kid: string | null; publicJwk: Prisma.JsonValue }[],
): Promise<string | undefined> {
  const mine = await thumbprint(jwk);
  for (const key of keys) {
    const stored = key.publicJwk as StoredPublicJwk | null;
    if (stored && stored.kty === jwk.kty && (await thumbprint(stored)) === mine) return key.kid ?? undefined;
  }
  return undefined;
}

/**
 * Adds a pasted public JWK to the app (`Add public key`). `actor` is absent for the operator CLI.
 * Refused, beside the field: anything but an EC P-256 or RSA (2048+ bits) public signing key, a
 * `kid` the app already has, the same key twice, an 11th key.
 */
export async function addPublicKey(appId: string, jwkText: string, actor?: Actor): Promise<AppKeyItem> {
  assertMayManageApps(actor);
  const jwk = await readPublicJwk(typeof jwkText === "string" ? jwkText : "");
  return storeKey(appId, jwk, "public_key", actor);
}

export interface GeneratedKeyPair {
  /** The new key as the list shows it. */
  key: AppKeyItem;
  /**
   * The private key, PKCS#8 PEM: handed back this once. Never stored, but sealed in the answer of an
   * idempotency key until the screen says it showed it (lib/idempotency/keys.ts).
   */
  privateKeyPem: string;
}

/** `Generate key pair`: a new ES256 (P-256) or RS256 (2048-bit) pair; only the public half is kept, its kid its thumbprint. */
export async function generateKeyPair(
  appId: string,
  alg: AppKeyAlg = "ES256",
  actor?: Actor,
  options: { idempotencyKey?: string; now?: Date } = {},
): Promise<GeneratedKeyPair> {
  assertMayManageApps(actor);
  if (!appKeyAlgs.includes(alg)) throw invalid("Choose ES256 or RS256.", FIELD.alg);
  const request = personRequest(actor?.id, options.idempotencyKey, { operation: "app.generateKeyPair", appId, alg });
  return answeredOnce(
    () => newKeyPair(appId, alg, actor, request, options.now ?? new Date()),
    (stored) => stored as GeneratedKeyPair,
  );
}

/** The pair made and its public half stored; with a key, the answer (private key included) kept sealed. */
async function newKeyPair(
  appId: string,
  alg: AppKeyAlg,
  actor: Actor | undefined,
  request: IdempotentRequest | undefined,
  now: Date,
): Promise<GeneratedKeyPair> {
  const pair = await generateJoseKeyPair(alg, {
    extractable: true,
    ...(alg === "RS256" ? { modulusLength: 2048 } : {}),
  });
  const publicJwk = await exportJWK(pair.publicKey);
  const key =
    alg === "ES256"
      ? ({ kty: "EC", crv: "P-256", x: publicJwk.x!, y: publicJwk.y!, alg } as const)
      : ({ kty: "RSA", n: publicJwk.n!, e: publicJwk.e!, alg } as const);
  const stored = { ...key, kid: await thumbprint(key) } as StoredPublicJwk;
  const privateKeyPem = await exportPKCS8(pair.privateKey);
  const row = await storeKey(
    appId,
    stored,
    "generated",
    actor,
    request && { request, now, answer: (item) => ({ key: item, privateKeyPem }) },
  );
  return { key: row, privateKeyPem };
}

/**
 * `JWKS URL`: the address the app publishes its keys at (one per app; saving another replaces
 * it). Checked here (https, a public address unless WEBHOOK_ALLOW_PRIVATE=1), not fetched.
 */
export async function setJwksUrl(appId: string, url: string, actor?: Actor): Promise<AppKeyItem> {
  assertMayManageApps(actor);
  const jwksUrl = jwksUrlSyntax(typeof url === "string" ? url : "");
  // Resolving the host waits on DNS: outside the transaction.
  const problem = await webhookUrlSaveProblem(jwksUrl, { wording: jwksWording });
  if (problem) throw invalid(problem, FIELD.jwksUrl);
  return changeKeys(appId, actor, async (tx, app) => {
    const previous = await tx.appKey.findMany({ where: { appId, source: "jwks_url" }, select: { jwksUrl: true } });
    // Deleted and inserted, not updated: the table's trigger tells every instance on both.
    await tx.appKey.deleteMany({ where: { appId, source: "jwks_url" } });
    const row = await tx.appKey.create({ data: { appId, source: "jwks_url", jwksUrl }, select: keySelect });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_jwks_url_set",
      targetId: appId,
      details: { keyId: row.id, jwksUrl, replaced: previous[0]?.jwksUrl ?? null },
    });
    return toItem(row);
  });
}

/** The app's keys and JWKS URL, oldest first, for the `Keys` list. */
export async function listAppKeys(appId: string, actor: Actor): Promise<AppKeyItem[]> {
  assertMayManageApps(actor);
  return db().$transaction(async (tx) => {
    await loadOwnApp(tx, appId, actor);
    const rows = await tx.appKey.findMany({
      where: { appId },
      select: keySelect,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toItem);
  });
}

/** `Remove`: the key (or the JWKS URL) stops at once; an assertion it signed is refused from now on. */
export async function removeAppKey(appId: string, keyId: string, actor?: Actor): Promise<AppKeyItem> {
  assertMayManageApps(actor);
  return changeKeys(appId, actor, async (tx, app) => {
    const row = await tx.appKey.findFirst({ where: { id: keyId, appId }, select: keySelect });
    if (!row) throw notFound("That key is no longer on the app: it was removed already.");
    await tx.appKey.delete({ where: { id: row.id } });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_key_removed",
      targetId: appId,
      details: { keyId: row.id, source: row.source, kid: row.kid, jwksUrl: row.jwksUrl },
    });
    return toItem(row);
  });
}
