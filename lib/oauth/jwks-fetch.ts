import http from "node:http";
import https from "node:https";
import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import { guardedLookup, parseWebhookTarget } from "@/lib/webhooks/ssrf";

/**
 * An app's JWKS URL, fetched the way webhooks are delivered: only public addresses (unless
 * WEBHOOK_ALLOW_PRIVATE=1), checked at connect time so DNS cannot be rebound between check and
 * connect, no redirects, a short timeout and a size cap. Each instance caches a URL's keys and
 * fetches it again when an assertion names a `kid` it does not hold, at most once per
 * `REFETCH_INTERVAL_MS`, so a stream of forged ids cannot make us hammer the app's server.
 */

const KEYS_TTL_MS = 10 * 60_000;
const REFETCH_INTERVAL_MS = 10_000;
const FETCH_TIMEOUT_MS = 5000;
const MAX_BYTES = 64 * 1024;

interface CachedKeys {
  keys: JSONWebKeySet;
  fetchedAt: number;
  /** Set when the last fetch failed: the reason, answered until the URL may be fetched again. */
  error?: string;
  inFlight?: Promise<JSONWebKeySet>;
}

const holder = globalThis as typeof globalThis & { __appJwks?: Map<string, CachedKeys>; __appJwksFetches?: number };
const cache = () => {
  holder.__appJwks ??= new Map();
  return holder.__appJwks;
};

/** For tests: forget every fetched key set. */
export function resetJwksCache(): void {
  holder.__appJwks = undefined;
  holder.__appJwksFetches = 0;
}

/** For tests: how many times a JWKS URL was fetched. */
export function jwksFetches(): number {
  return holder.__appJwksFetches ?? 0;
}

function get(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "GET",
      headers: { accept: "application/jwk-set+json, application/json" },
      lookup: guardedLookup(),
      timeout: FETCH_TIMEOUT_MS,
    });
    request.on("timeout", () => request.destroy(new Error(`no answer within ${FETCH_TIMEOUT_MS / 1000} seconds`)));
    request.on("error", reject);
    request.on("response", (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`it answered HTTP ${response.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) {
          request.destroy(new Error(`it is larger than ${MAX_BYTES / 1024} KB`));
          return;
        }
        chunks.push(chunk);
      });
      response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      response.on("error", reject);
    });
    request.end();
  });
}

async function fetchKeySet(raw: string): Promise<JSONWebKeySet> {
  holder.__appJwksFetches = (holder.__appJwksFetches ?? 0) + 1;
  const url = parseWebhookTarget(raw);
  const text = await get(url);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("it is not JSON");
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('it has no "keys" array');
  // Only public signing keys of the two algorithms we accept; anything else is left out, not fatal.
  const usable = keys.filter(
    (k): k is JSONWebKeySet["keys"][number] =>
      typeof k === "object" &&
      k !== null &&
      !("d" in k) &&
      ((k as { kty?: unknown }).kty === "EC" || (k as { kty?: unknown }).kty === "RSA"),
  );
  createLocalJWKSet({ keys: usable }); // throws on a malformed set
  return { keys: usable };
}

export type JwksLookup = { keys: JSONWebKeySet } | { error: string };

/**
 * The key set at `url`, from this instance's cache when it is fresh and, when `kid` is given,
 * holds that `kid`; otherwise fetched again (at most once per REFETCH_INTERVAL_MS). A failed fetch
 * answers the reason, for the client's error description.
 */
export async function jwksFor(url: string, kid: string | undefined, now = Date.now()): Promise<JwksLookup> {
  const entries = cache();
  const entry = entries.get(url);
  const holdsKid = (keys: JSONWebKeySet) => kid === undefined || keys.keys.some((k) => k.kid === kid);
  if (entry) {
    const fresh = now - entry.fetchedAt < KEYS_TTL_MS;
    const mayRefetch = now - entry.fetchedAt >= REFETCH_INTERVAL_MS;
    if (!mayRefetch && entry.error) return { error: entry.error };
    if ((fresh && holdsKid(entry.keys)) || !mayRefetch) return { keys: entry.keys };
  }
  const pending = entry?.inFlight ?? fetchKeySet(url);
  if (entry) entry.inFlight = pending;
  try {
    const keys = await pending;
    entries.set(url, { keys, fetchedAt: now });
    return { keys };
  } catch (failure) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    const error = `The app's JWKS URL could not be read: ${reason}.`;
    // A URL that fails keeps answering its last good keys until they expire; either way it is not
    // fetched again for REFETCH_INTERVAL_MS.
    if (entry && !entry.error && now - entry.fetchedAt < KEYS_TTL_MS) {
      entries.set(url, { keys: entry.keys, fetchedAt: now });
      return { keys: entry.keys };
    }
    entries.set(url, { keys: { keys: [] }, fetchedAt: now, error });
    return { error };
  }
}
