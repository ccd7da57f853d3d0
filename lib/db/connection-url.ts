import { EnvError } from "@/lib/env";

/**
 * A PostgreSQL DATABASE_URL with several hosts, as libpq reads it
 * (`postgresql://user@h1:5432,h2:5433/db?target_session_attrs=read-write`): node-pg's own parser
 * throws `Invalid URL` on it, so it is split here into one single-host URL per host, which node-pg
 * and every other tool read as before. Pure text work: the connection (which host is chosen, and
 * when) is ./host-choice.ts.
 *
 * Only the URI form is read (a host list in the authority, each host with its own port); libpq's
 * `?host=a,b&port=1,2` keywords are left to node-pg as they are.
 */

export const DEFAULT_PORT = 5432;

/** libpq's default is no limit; a failover must not wait minutes on a host that drops packets. */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 2;

/**
 * `any`: the first host that accepts a connection. `read-write`: the first whose session accepts
 * writes (`SHOW transaction_read_only` is `off`), so a standby, or a primary being demoted, is
 * skipped. libpq's other values (read-only, standby…) would send the service's writes to a
 * standby, so they are refused.
 */
export type TargetSessionAttrs = "any" | "read-write";

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseUrl {
  hosts: DatabaseHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** libpq's `connect_timeout` (seconds, per host), or DEFAULT_CONNECT_TIMEOUT_SECONDS. */
  connectTimeoutSeconds: number;
  /** True when a host must be chosen at connect: several hosts, or `target_session_attrs=read-write`. */
  choosesHost: boolean;
  /** The URL with `host` alone and without `target_session_attrs`, for node-pg and single-host tools. */
  forHost(host: DatabaseHost): string;
}

/** A DATABASE_URL that cannot work; the message names the variable and the fix (it stops the start). */
export class DatabaseUrlError extends EnvError {
  override name = "DatabaseUrlError";
}

const fail = (why: string): never => {
  throw new DatabaseUrlError(`The environment variable DATABASE_URL ${why}`);
};

/** The parameters this module reads, removed from the single-host URLs (node-pg does not know them). */
const readParameters = new Set(["target_session_attrs"]);

function parseHost(entry: string): DatabaseHost {
  // `[v6]` or `[v6]:port`, else `name` or `name:port`.
  const bracketed = /^(\[[^\]]+\])(?::(.*))?$/.exec(entry);
  const [host, port] = bracketed ? [bracketed[1] ?? "", bracketed[2]] : splitOnce(entry, ":");
  if (!host) fail(`has an empty host in its host list ("${entry}"): write each as host or host:port.`);
  if (host.includes("/") || host.includes("@")) fail(`has a malformed host "${host}" in its host list.`);
  if (port === undefined || port === "") return { host, port: DEFAULT_PORT };
  const number = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN;
  if (!(number >= 1 && number <= 65535)) fail(`names port "${port}" for ${host}: a port is a number from 1 to 65535.`);
  return { host, port: number };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/** Splits a `postgres://` or `postgresql://` DATABASE_URL; throws DatabaseUrlError on what cannot work. */
export function parseDatabaseUrl(url: string): DatabaseUrl {
  const scheme = /^postgres(?:ql)?:\/\//.exec(url)?.[0];
  if (!scheme) fail("must start with postgresql:// for a host list.");
  const afterScheme = url.slice((scheme as string).length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const tail = authorityEnd < 0 ? "" : afterScheme.slice(authorityEnd);
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? "" : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);

  const hashAt = tail.indexOf("#");
  const beforeHash = hashAt < 0 ? tail : tail.slice(0, hashAt);
  const hash = hashAt < 0 ? "" : tail.slice(hashAt);
  const [path, query = ""] = splitOnce(beforeHash, "?");

  let targetSessionAttrs: TargetSessionAttrs = "any";
  let connectTimeoutSeconds = DEFAULT_CONNECT_TIMEOUT_SECONDS;
  const kept: string[] = [];
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const [rawKey, rawValue = ""] = splitOnce(pair, "=");
    const key = decode(rawKey);
    const value = decode(rawValue);
    if (key === "target_session_attrs") {
      if (value !== "any" && value !== "read-write") {
        fail(
          `has target_session_attrs=${value}, which this service cannot use (it writes): use read-write, or leave it out.`,
        );
      }
      targetSessionAttrs = value as TargetSessionAttrs;
    } else if (key === "connect_timeout") {
      const seconds = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!(seconds >= 1 && seconds <= 3600)) fail(`has connect_timeout=${value}: give whole seconds from 1 to 3600.`);
      connectTimeoutSeconds = seconds;
    }
    if (!readParameters.has(key)) kept.push(pair);
  }

  const hosts = hostList === "" ? [] : hostList.split(",").map(parseHost);
  const choosesHost = hosts.length > 1 || targetSessionAttrs === "read-write";
  if (choosesHost && hosts.length === 0) fail("has target_session_attrs but no host: name the hosts in the URL.");
  const rest = `${path}${kept.length ? `?${kept.join("&")}` : ""}${hash}`;
  return {
    hosts,
    targetSessionAttrs,
    connectTimeoutSeconds,
    choosesHost,
    forHost: (host) => `${scheme}${userinfo}${host.host}:${host.port}${rest}`,
  };
}

/** The address a socket connects to: an IPv6 host without the brackets the URL writes it in. */
export function socketHost(host: DatabaseHost): string {
  return host.host.replace(/^\[(.*)\]$/, "$1");
}

/** `h1:5432, h2:5433`, for log lines and errors (never the user or password). */
export function hostList(hosts: DatabaseHost[]): string {
  return hosts.map((h) => `${h.host}:${h.port}`).join(", ");
}
