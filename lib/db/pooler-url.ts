import { EnvError } from "@/lib/env";

/**
 * A transaction-mode pooler in front of PostgreSQL (PgBouncer `pool_mode=transaction`, Supavisor,
 * RDS Proxy): DATABASE_URL marked `?pgbouncer=true` says so. Through it each transaction may land
 * on another server connection, so nothing may rely on a session: no named prepared statements
 * (./prepared.ts, ./hot-statement.ts run unnamed), no LISTEN, no session-level advisory lock, no
 * session SET. What needs a session (the LISTEN of ./state-listener.ts, the migrations and their
 * advisory lock, ./migrations.ts) goes to DATABASE_DIRECT_URL, which is then required.
 *
 * String work only, on the query part: the host part is left exactly as given (a multi-host URL is
 * parsed elsewhere, ./adapter.ts), and node-pg never sees `pgbouncer`.
 */
export interface PoolerUrls {
  /** DATABASE_URL as node-pg gets it: without `pgbouncer`. */
  url: string;
  /** Behind a transaction-mode pooler: no named prepared statements and no session state through `url`. */
  pooled: boolean;
  /** Where work that needs one session goes: DATABASE_DIRECT_URL when pooled, else `url`. */
  sessionUrl: string;
}

const TRUE = new Set(["true", "1", "on", "yes"]);
const FALSE = new Set(["false", "0", "off", "no"]);

/** `url` without its `pgbouncer` parameter, and what that parameter said (undefined: absent). */
export function stripPgbouncer(url: string, variable = "DATABASE_URL"): { url: string; pgbouncer?: boolean } {
  const hash = url.indexOf("#");
  const body = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const question = body.indexOf("?");
  if (question < 0) return { url };
  const kept: string[] = [];
  let pgbouncer: boolean | undefined;
  for (const part of body.slice(question + 1).split("&")) {
    const [rawKey = "", rawValue = ""] = part.split("=", 2);
    if (decode(rawKey) !== "pgbouncer") {
      if (part) kept.push(part);
      continue;
    }
    const value = decode(rawValue).toLowerCase();
    if (TRUE.has(value)) pgbouncer = true;
    else if (FALSE.has(value)) pgbouncer = false;
    else
      throw new EnvError(`The environment variable ${variable} has pgbouncer=${rawValue}: it must be true or false.`);
  }
  const base = body.slice(0, question);
  return { url: `${base}${kept.length ? `?${kept.join("&")}` : ""}${fragment}`, pgbouncer };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/**
 * The URLs of a PostgreSQL DATABASE_URL and DATABASE_DIRECT_URL. With `pgbouncer=true` and no
 * direct URL it stops the start with a sentence naming DATABASE_DIRECT_URL: falling back to the
 * pooler for the migrations' lock and the LISTEN is exactly what fails there (a second instance
 * that never starts, a read cache that never hears of a revocation), so it is never guessed.
 * Without the flag DATABASE_DIRECT_URL is ignored: everything runs on DATABASE_URL, as before.
 */
export function poolerUrls(databaseUrl: string, directUrl?: string): PoolerUrls {
  const main = stripPgbouncer(databaseUrl);
  if (!main.pgbouncer) return { url: main.url, pooled: false, sessionUrl: main.url };
  if (!directUrl) {
    throw new EnvError(
      "The environment variable DATABASE_DIRECT_URL is not set, and DATABASE_URL has pgbouncer=true: behind a transaction-mode pooler, migrations, their advisory lock and LISTEN/NOTIFY need a direct connection to PostgreSQL (postgresql://user@db-host:5432/db).",
    );
  }
  const direct = stripPgbouncer(directUrl, "DATABASE_DIRECT_URL");
  if (direct.pgbouncer) {
    throw new EnvError(
      "The environment variable DATABASE_DIRECT_URL has pgbouncer=true: it must reach PostgreSQL directly, not through the pooler.",
    );
  }
  return { url: main.url, pooled: true, sessionUrl: direct.url };
}
