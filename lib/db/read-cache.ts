import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { databaseHandle } from "@/lib/db/client";
import { listenForStateChanges, type StateListener } from "./state-listener";

/**
 * A short-lived, per-process cache of the rows every API request reads: successful Bearer
 * verifications (so a hot token costs no database round trip and no signature check) and
 * sub-accounts (GET /locations/{id}). Only rows that exist and allow something are cached; every
 * refusal is decided against the database. It never serves state older than SPEC.md allows (a
 * revocation, uninstall, rotation or delete is refused at once by the instance that made it and
 * within one second by every other), and a sub-account is held to the same rule:
 *
 * - This instance: every change of cached state runs through `changeCachedState`, which bypasses
 *   the cache while the change is in flight and empties it once the change has committed.
 * - Other instances: triggers on the cached tables (migrations `token_state_notify`,
 *   `location_state_notify`, and `installation_declined_version` for an installation's scopes,
 *   which narrow its tokens) send `NOTIFY token_state` when a change commits, whoever made it
 *   (this app, another instance, an operator with psql). Each instance LISTENs on a connection of
 *   its own and empties its cache on every notification. The cache is used only while that
 *   connection is listening: before it is up, after an error, and until it has reconnected, every
 *   read goes to the database. (The channel's name predates sub-accounts; it is kept so instances
 *   of two versions hear each other during a rolling deploy.)
 * - Backstop: an entry lives at most `READ_CACHE_TTL_MS` from the moment its database read
 *   began, so even a notification lost on a half-open connection is outlived by less than a second.
 * - A read that overlaps a notification is not stored (generation check), so a read of the old
 *   state just before a commit cannot put it back after the cache was emptied.
 * - Requests that miss the same key while its read is out wait for that read instead of each
 *   making its own (when an entry ends, every request in flight misses it at once), but only a
 *   read begun since the last notification: none is answered from state older than one it
 *   could have read itself.
 *
 * On PGlite one process owns the database; its notifications come through PGlite's own LISTEN.
 *
 * The payload of a notification is the changed table's name. Other per-process caches (the
 * access-token signing keys) follow their table through `tableChangeMarker`.
 */

/** At most this long after its database read began does a cached row answer. */
export const READ_CACHE_TTL_MS = 900;
const MAX_ENTRIES = 10_000;

interface CacheState {
  entries: LRUCache<string, { value: unknown }>;
  /** Reads out to the database, by key, with the generation they began in. */
  reading: Map<string, { generation: number; value: Promise<unknown> }>;
  /** Bumped by every invalidation; a read stores its result only if it did not change meanwhile. */
  generation: number;
  /** Token-state changes of this process in flight: the cache is bypassed while any is. */
  changing: number;
  listener?: StateListener;
  /** Notifications received (tests and the bench read it). */
  notifications: number;
  /** Notifications received per table (their payload), for `tableChangeMarker`. */
  tableChanges: Map<string, number>;
  /** Bumped each time a listener starts listening: changes may have been missed before. */
  listenerEpoch: number;
  /** Off: every read goes to the database (the scale bench measures that path). */
  disabled: boolean;
}

const holder = globalThis as typeof globalThis & { __readCache?: CacheState };

function state(): CacheState {
  holder.__readCache ??= {
    entries: new LRUCache({ max: MAX_ENTRIES }),
    reading: new Map(),
    generation: 0,
    changing: 0,
    notifications: 0,
    tableChanges: new Map(),
    listenerEpoch: 0,
    disabled: false,
  };
  return holder.__readCache;
}

/**
 * The cache key of a token: a hash, so the cache never holds a token itself. A plain SHA-256 in one
 * call (`crypto.hash`), not the keyed hash the database stores: every API request computes it, and
 * the keyed one, made only on a miss, costs several times as much.
 */
export function cacheKey(kind: "pit" | "jwt", token: string): string {
  return `${kind}:${hash("sha256", token, "base64url")}`;
}

/** Empties the cache. Any read in flight will not store its result. */
export function invalidateReadCache(): void {
  const s = state();
  s.generation += 1;
  s.entries.clear();
}

/** Whether the cache may answer now: listening for other instances' changes, none of ours in flight. */
function usable(s: CacheState): boolean {
  if (s.changing > 0 || s.disabled) return false;
  const listener = ensureListener(s);
  return listener?.state === "listening";
}

/**
 * The cached result of `load()` for `key` (namespaced by its kind: `pit:`, `jwt:`, `location:`),
 * or a fresh one. Only results `cacheable` accepts (the token was valid, the row exists) are kept;
 * the caller still checks time-dependent rules (expiry) and access on every use.
 */
export function cachedRead<T>(key: string, load: () => Promise<T>, cacheable: (value: T) => boolean): Promise<T> {
  // Never throws: whatever goes wrong (the database handle, say) is the promise's rejection.
  try {
    return readOrShare(key, load, cacheable);
  } catch (error) {
    return Promise.reject(error);
  }
}

function readOrShare<T>(key: string, load: () => Promise<T>, cacheable: (value: T) => boolean): Promise<T> {
  const s = state();
  if (!usable(s)) return loadAndStore(s, key, undefined, load, cacheable);
  const hit = s.entries.get(key);
  if (hit) return Promise.resolve(hit.value as T);
  const generation = s.generation;
  const out = s.reading.get(key);
  if (out?.generation === generation) return out.value as Promise<T>;
  const value = loadAndStore(s, key, generation, load, cacheable);
  const reading = { generation, value };
  s.reading.set(key, reading);
  const done = () => {
    if (s.reading.get(key) === reading) s.reading.delete(key);
  };
  value.then(done, done);
  return value;
}

/** `load()`'s answer, kept for `key` when it may be (`generation`: the cache's when the read began; none: not kept). */
async function loadAndStore<T>(
  s: CacheState,
  key: string,
  generation: number | undefined,
  load: () => Promise<T>,
  cacheable: (value: T) => boolean,
): Promise<T> {
  const readStarted = performance.now();
  const value = await load();
  if (generation === undefined) return value;
  const ttl = READ_CACHE_TTL_MS - (performance.now() - readStarted);
  if (ttl > 0 && cacheable(value) && s.generation === generation && usable(s)) {
    s.entries.set(key, { value }, { ttl });
  }
  return value;
}

/**
 * What `cachedRead(key, …)` would answer from the cache right now, without reading: the cached
 * value, or undefined when cachedRead would go to the database. Lets a caller decide at once, with
 * no promise, when the row is cached.
 */
export function peekCachedRead<T>(key: string): { value: T } | undefined {
  const s = state();
  if (!usable(s)) return undefined;
  return s.entries.get(key) as { value: T } | undefined;
}

/**
 * Runs a change of cached state (revoke, uninstall, rotate, delete, edit scopes; a change of a
 * sub-account): the cache is bypassed while it runs and emptied when it ends, committed or not,
 * so this instance refuses a revoked token from the moment the change returns.
 */
export async function changeCachedState<T>(change: () => Promise<T>): Promise<T> {
  const s = state();
  s.changing += 1;
  invalidateReadCache();
  try {
    return await change();
  } finally {
    invalidateReadCache();
    s.changing -= 1;
  }
}

export function readCacheStats(): {
  size: number;
  notifications: number;
  listening: boolean;
  listenerPid?: number;
} {
  const s = state();
  return {
    size: s.entries.size,
    notifications: s.notifications,
    listening: s.listener?.state === "listening",
    listenerPid: s.listener?.pid,
  };
}

/** For the scale bench and tests: turn the cache off (every read goes to the database) or on. */
export function setReadCacheEnabled(enabled: boolean): void {
  state().disabled = !enabled;
  invalidateReadCache();
}

/**
 * A value that changes whenever a committed change of `table` is announced on the channel (by any
 * instance) or the listener has reconnected; undefined while nothing listens, when the caller
 * must fall back on a TTL of its own.
 */
export function tableChangeMarker(table: string): string | undefined {
  const s = state();
  if (ensureListener(s)?.state !== "listening") return undefined;
  return `${s.listenerEpoch}:${s.tableChanges.get(table) ?? 0}`;
}

function onNotification(s: CacheState, table?: string): void {
  s.notifications += 1;
  if (table) s.tableChanges.set(table, (s.tableChanges.get(table) ?? 0) + 1);
  invalidateReadCache();
}

/** Starts LISTENing on the process's database, once per database handle. */
function ensureListener(s: CacheState): StateListener | undefined {
  const handle = databaseHandle();
  if (s.listener?.handle === handle && s.listener.state !== "stopped") return s.listener;
  if (s.listener && s.listener.handle !== handle) void s.listener.stop();
  s.listener = listenForStateChanges(handle, {
    changed: (table) => onNotification(s, table),
    missed: invalidateReadCache,
    listening: () => {
      // Changes made while nobody listened: start from an empty cache.
      invalidateReadCache();
      s.listenerEpoch += 1;
    },
  });
  return s.listener;
}
