import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import { z } from "zod";
import { HttpError } from "@/lib/api/http-error";
import { parseJsonText } from "@/lib/api/parse";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { revokeLeakedCredentials } from "./revoke";

/**
 * GitHub's secret scanning partner program (docs.github.com › Secret scanning partner program):
 * GitHub POSTs a JSON array of `{token, type, url, source}` signed with ECDSA P-256 / SHA-256 over
 * the raw body, naming its key in `Github-Public-Key-Identifier` and giving the base64 DER
 * signature in `Github-Public-Key-Signature`. The keys are published at `SECRET_SCANNING_KEYS_URL`
 * (`{"public_keys":[{"key_identifier","key","is_current"}]}`, PEM). We answer, per match, the
 * SHA-256 of the token and whether it was live (`true_positive`, and now revoked) or not.
 */

/** How long fetched keys are used before they are read again. */
const KEYS_TTL_MS = 60 * 60 * 1000;
/** An unknown key id refetches the keys at most this often (a forged id cannot make us hammer GitHub). */
const REFETCH_INTERVAL_MS = 1000;
const FETCH_TIMEOUT_MS = 5000;
const MAX_KEYS_BYTES = 256 * 1024;

const publicKeysSchema = z.object({
  public_keys: z.array(z.object({ key_identifier: z.string().min(1), key: z.string().min(1) })),
});

interface KeyCache {
  url: string;
  keys: Map<string, KeyObject>;
  fetchedAt: number;
  fetches: number;
  inFlight?: Promise<void>;
}

const holder = globalThis as typeof globalThis & { __secretScanningKeys?: KeyCache };

/** For tests: forget the fetched keys. */
export function resetSecretScanningKeys(): void {
  holder.__secretScanningKeys = undefined;
}

async function fetchKeys(cache: KeyCache): Promise<void> {
  cache.fetches += 1;
  const response = await fetch(cache.url, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    redirect: "error",
  });
  if (!response.ok) throw new Error(`the keys answered HTTP ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_KEYS_BYTES) throw new Error("the keys document is too large");
  const parsed = publicKeysSchema.parse(JSON.parse(text));
  const keys = new Map<string, KeyObject>();
  for (const { key_identifier, key } of parsed.public_keys) {
    try {
      keys.set(key_identifier, createPublicKey(key));
    } catch {
      log.warn("secret scanning key ignored: not a public key", { keyId: key_identifier.slice(0, 200) });
    }
  }
  cache.keys = keys;
}

/** Fetches once at a time: concurrent callers share one request. */
function refresh(cache: KeyCache, now: number): Promise<void> {
  cache.inFlight ??= fetchKeys(cache)
    .then(() => {
      cache.fetchedAt = now;
    })
    .finally(() => {
      cache.inFlight = undefined;
    });
  return cache.inFlight;
}

/**
 * The key named `keyId`: from the cache while it is fresh; an unknown id refetches the keys once,
 * at most once per `REFETCH_INTERVAL_MS` (GitHub rotates keys and may sign with a new one first).
 */
async function publicKey(url: string, keyId: string, now: number): Promise<KeyObject | undefined> {
  let cache = holder.__secretScanningKeys;
  if (!cache || cache.url !== url) {
    cache = { url, keys: new Map(), fetchedAt: Number.NEGATIVE_INFINITY, fetches: 0 };
    holder.__secretScanningKeys = cache;
  }
  if (now - cache.fetchedAt >= KEYS_TTL_MS) await refresh(cache, now);
  else if (!cache.keys.has(keyId) && now - cache.fetchedAt >= REFETCH_INTERVAL_MS) await refresh(cache, now);
  return cache.keys.get(keyId);
}

/** `SECRET_SCANNING_KEYS_URL`; unset, the endpoint does not exist (404 `not_found`). */
export function secretScanningKeysUrl(): string {
  const url = env().SECRET_SCANNING_KEYS_URL;
  if (!url) {
    throw new HttpError(
      "not_found",
      "Secret scanning reports are not accepted here: this server has no SECRET_SCANNING_KEYS_URL.",
    );
  }
  return url;
}

const unsigned = (description: string) => new HttpError("invalid_client", description);

/** Verifies the request's signature over `rawBody`; throws 401 `invalid_client` when it does not hold. */
export async function verifyGithubSignature(rawBody: string, headers: Headers, now = Date.now()): Promise<void> {
  const url = secretScanningKeysUrl();
  const keyId = headers.get("github-public-key-identifier")?.trim();
  const signature = headers.get("github-public-key-signature")?.trim();
  if (!keyId || !signature) {
    throw unsigned("Github-Public-Key-Identifier and Github-Public-Key-Signature are required.");
  }
  let key: KeyObject | undefined;
  try {
    key = await publicKey(url, keyId, now);
  } catch (error) {
    log.error("secret scanning keys could not be fetched", { error: describeError(error) });
    throw unsigned("The signature could not be checked: the secret scanning keys could not be fetched. Retry later.");
  }
  if (!key) throw unsigned("Github-Public-Key-Identifier names no current secret scanning key.");
  let valid = false;
  try {
    valid = verify("sha256", Buffer.from(rawBody, "utf8"), key, Buffer.from(signature, "base64"));
  } catch {
    valid = false;
  }
  if (!valid) throw unsigned("Github-Public-Key-Signature does not verify over this body with the named key.");
}

/** One match GitHub reports. */
export const secretScanningMatchesSchema = z
  .array(
    z.object({
      token: z.string().min(1).max(512),
      type: z.string().min(1).max(200),
      url: z.string().max(2048).optional(),
      source: z.string().max(200).optional(),
    }),
  )
  .min(1, { message: "must report at least 1 token" })
  .max(100, { message: "must report at most 100 tokens" });
export type SecretScanningMatch = z.infer<typeof secretScanningMatchesSchema>[number];

export interface SecretScanningLabel {
  token_hash: string;
  token_type: string;
  label: "true_positive" | "false_positive";
}

/** Parses the verified body's matches (400 with SPEC's body when they are malformed). */
export function parseSecretScanningBody(rawBody: string): SecretScanningMatch[] {
  return parseJsonText(rawBody, secretScanningMatchesSchema);
}

/** Revokes the live tokens among `matches` and labels each match. */
export async function handleSecretScanningMatches(
  matches: readonly SecretScanningMatch[],
  now: Date = new Date(),
): Promise<SecretScanningLabel[]> {
  // One revocation per place found, so each integration's reason names where its token was.
  const live = new Array<boolean>(matches.length).fill(false);
  const byUrl = new Map<string, number[]>();
  matches.forEach((m, i) => {
    byUrl.set(m.url ?? "", [...(byUrl.get(m.url ?? "") ?? []), i]);
  });
  for (const [url, indexes] of byUrl) {
    const reason = `Reported as leaked by GitHub secret scanning${url ? ` (found at ${url.slice(0, 300)})` : ""}.`;
    const { revoked } = await revokeLeakedCredentials(
      indexes.map((i) => matches[i]?.token ?? ""),
      reason,
      now,
    );
    indexes.forEach((i, k) => {
      live[i] = revoked[k] ?? false;
    });
  }
  return matches.map((m, i) => ({
    token_hash: createHash("sha256").update(m.token, "utf8").digest("hex"),
    token_type: m.type,
    label: live[i] ? "true_positive" : "false_positive",
  }));
}

/** For tests: how many times the keys were fetched. */
export function secretScanningKeyFetches(): number {
  return holder.__secretScanningKeys?.fetches ?? 0;
}
