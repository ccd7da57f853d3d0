import type pg from "pg";
import type { DatabaseHandle } from "@/lib/db/adapter";
import { onDisconnect } from "@/lib/db/client";
import { pgClient } from "@/lib/db/host-choice";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";

/**
 * The LISTEN half of the read cache (./read-cache.ts): one listener per database handle on the
 * channel the cached tables' triggers NOTIFY, on PGlite through PGlite's own LISTEN, on
 * PostgreSQL on a connection of its own that reconnects after any error. It only reports; what a
 * notification or a gap means for the cache is decided there.
 */

export const CACHED_STATE_CHANNEL = "token_state";
const RECONNECT_MS = 1_000;

export interface StateListener {
  handle: DatabaseHandle;
  state: "starting" | "listening" | "stopped";
  /** PostgreSQL: the backend pid of the LISTEN connection (tests). */
  pid?: number;
  stop(): Promise<void>;
}

export interface StateEvents {
  /** A committed change was announced; the payload is the changed table's name. */
  changed(table?: string): void;
  /** Announcements may be missed from now on (stopped, connection lost). */
  missed(): void;
  /** Listening (again): announcements made before may have been missed. */
  listening(): void;
}

/** Starts listening on `handle`'s database; state "listening" once the LISTEN took effect. */
export function listenForStateChanges(handle: DatabaseHandle, events: StateEvents): StateListener {
  return handle.listen ? listenPglite(handle, handle.listen, events) : listenPostgres(handle, events);
}

function listenPglite(
  handle: DatabaseHandle,
  listen: NonNullable<DatabaseHandle["listen"]>,
  events: StateEvents,
): StateListener {
  let unsubscribe: (() => Promise<void>) | undefined;
  const listener: StateListener = {
    handle,
    state: "starting",
    stop: async () => {
      listener.state = "stopped";
      events.missed();
      await unsubscribe?.().catch(() => {});
    },
  };
  listen(CACHED_STATE_CHANNEL, (payload: string) => events.changed(payload))
    .then((off: () => Promise<void>) => {
      unsubscribe = off;
      if (listener.state === "starting") {
        events.listening();
        listener.state = "listening";
      }
    })
    .catch((error: unknown) => {
      listener.state = "stopped";
      log.warn("token-state LISTEN failed on PGlite; nothing is cached", { error: describeError(error) });
    });
  onDisconnect(handle, () => listener.stop());
  return listener;
}

/**
 * A dedicated connection (not from the pool: LISTEN belongs to a session; never through a
 * transaction-mode pooler, so on DATABASE_DIRECT_URL when there is one). On any error it
 * reports the gap (the cache is then bypassed) and reconnects after a second.
 */
function listenPostgres(handle: DatabaseHandle, events: StateEvents): StateListener {
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const listener: StateListener = {
    handle,
    state: "starting",
    stop: async () => {
      listener.state = "stopped";
      if (timer) clearTimeout(timer);
      events.missed();
      await client?.end().catch(() => {});
    },
  };
  const lost = (error: unknown) => {
    if (listener.state === "stopped") return;
    listener.state = "starting";
    events.missed();
    log.warn("token-state listener lost; nothing is cached until it is back", {
      error: describeError(error),
    });
    const old = client;
    client = undefined;
    void old?.end().catch(() => {});
    timer = setTimeout(connect, RECONNECT_MS);
    timer.unref();
  };
  const connect = () => {
    if (listener.state === "stopped") return;
    // The handle's session URL: DATABASE_DIRECT_URL behind a transaction-mode pooler, where a
    // LISTEN would hold no server connection of its own (lib/db/pooler-url.ts).
    const next = pgClient(handle.sessionUrl ?? env().DATABASE_URL, { application_name: "token-state-listener" });
    client = next;
    // Only the current connection's events count (an old one's "end" arrives after it was replaced).
    const fail = (error: unknown) => {
      if (client === next) lost(error);
    };
    next.on("notification", (message) => events.changed(message.payload));
    next.on("error", fail);
    next.on("end", () => fail(new Error("connection ended")));
    next
      .connect()
      .then(() => next.query(`LISTEN ${CACHED_STATE_CHANNEL}`))
      .then(() => {
        if (listener.state !== "starting" || client !== next) return;
        listener.pid = (next as pg.Client & { processID?: number }).processID;
        events.listening();
        listener.state = "listening";
      })
      .catch(fail);
  };
  connect();
  onDisconnect(handle, () => listener.stop());
  return listener;
}
