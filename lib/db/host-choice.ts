import pg from "pg";
import { type DatabaseHost, type DatabaseUrl, hostList, parseDatabaseUrl, socketHost } from "./connection-url";

/**
 * Which host of a multi-host DATABASE_URL a new connection goes to (./connection-url.ts reads the
 * URL). node-pg connects to one host; here every connection a pool opens asks a chooser shared by
 * all pools and clients of that URL. The chooser keeps the host it found; while none is known it
 * tries each host in order, as libpq does, and keeps the first that connects and, with
 * `target_session_attrs=read-write`, answers `SHOW transaction_read_only` with `off`. Each new
 * connection checks that again on itself, so one made to a host that was demoted meanwhile is
 * refused and the host forgotten; so is a host that refuses a connection. The pool drops a
 * connection that failed (pg-pool), so after a failover the next connection finds the new primary:
 * no restart. While no host qualifies, connecting fails at once with NoWritableHostError (a
 * connection-class SQLSTATE, which lib/log-database-error.ts reads as "unreachable").
 */

/** No host of the list could be used; `code` and `severity` make it read as a PostgreSQL error (08001). */
export class NoWritableHostError extends Error {
  override name = "NoWritableHostError";
  readonly code = "08001";
  readonly severity = "FATAL";
}

/** The host a session is on, and whether it takes writes. */
async function acceptsWrites(client: pg.Client): Promise<boolean> {
  const result = await client.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
  return result.rows[0]?.transaction_read_only === "off";
}

const ignore = () => {};

export class HostChooser {
  private known: DatabaseHost | undefined;
  private probing: Promise<DatabaseHost> | undefined;

  constructor(readonly url: DatabaseUrl) {}

  get connectTimeoutMillis(): number {
    return this.url.connectTimeoutSeconds * 1000;
  }

  /** The host to connect to: the one known, else the first of the list that qualifies (one probe at a time). */
  choose(): Promise<DatabaseHost> {
    if (this.known) return Promise.resolve(this.known);
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /** `host` failed (refused, dropped, read-only): the next connection probes the list again. */
  forget(host: DatabaseHost): void {
    if (this.known === host) this.known = undefined;
  }

  /** The host chosen now, if any (tests, logs). */
  get current(): DatabaseHost | undefined {
    return this.known;
  }

  /** Whether a connected session is what the URL asks for. */
  async qualifies(client: pg.Client): Promise<boolean> {
    return this.url.targetSessionAttrs === "any" || (await acceptsWrites(client));
  }

  private async probe(): Promise<DatabaseHost> {
    const reasons: string[] = [];
    for (const host of this.url.hosts) {
      const client = new pg.Client({
        connectionString: this.url.forHost(host),
        connectionTimeoutMillis: this.connectTimeoutMillis,
        application_name: "token-service-host-probe",
      });
      client.on("error", ignore);
      try {
        await client.connect();
        if (await this.qualifies(client)) {
          this.known = host;
          return host;
        }
        reasons.push(`${hostList([host])} is read-only`);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        reasons.push(`${hostList([host])} did not connect${typeof code === "string" ? ` (${code})` : ""}`);
      } finally {
        await client.end().catch(ignore);
      }
    }
    throw new NoWritableHostError(
      `No host of DATABASE_URL takes ${this.url.targetSessionAttrs === "read-write" ? "writes" : "connections"}: ${reasons.join("; ")}.`,
    );
  }
}

const choosers = new Map<string, HostChooser>();

/** The chooser of `url` (one per URL in the process, so every pool follows the same failover). */
export function hostChooser(url: string): HostChooser | undefined {
  const existing = choosers.get(url);
  if (existing) return existing;
  const parsed = parseDatabaseUrl(url);
  if (!parsed.choosesHost) return undefined;
  const chooser = new HostChooser(parsed);
  choosers.set(url, chooser);
  return chooser;
}

/** Where node-pg's Client keeps the address it connects to (read by its `connect`). */
interface Aimable {
  host: string;
  port: number;
  connectionParameters: { host: string; port: number };
}

type ConnectCallback = (error: Error | null, client?: pg.Client) => void;

/** A pg.Client class whose `connect` goes to the host `chooser` picks, and refuses one that no longer qualifies. */
export function hostChoosingClient(chooser: HostChooser): typeof pg.Client {
  return class HostChoosingClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      const options = typeof config === "string" ? { connectionString: config } : { ...config };
      options.connectionTimeoutMillis ??= chooser.connectTimeoutMillis;
      super(options);
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
      const connected = this.connectToChosen();
      if (!callback) return connected;
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    private async connectToChosen(): Promise<pg.Client> {
      const host = await chooser.choose();
      const aim = this as unknown as Aimable;
      aim.host = socketHost(host);
      aim.port = host.port;
      aim.connectionParameters.host = socketHost(host);
      aim.connectionParameters.port = host.port;
      try {
        await super.connect();
      } catch (error) {
        chooser.forget(host);
        throw error;
      }
      let qualifies: boolean;
      try {
        qualifies = await chooser.qualifies(this);
      } catch (error) {
        chooser.forget(host);
        await this.end().catch(ignore);
        throw error;
      }
      if (!qualifies) {
        chooser.forget(host);
        await this.end().catch(ignore);
        throw new NoWritableHostError(`${hostList([host])} no longer takes writes (a standby now).`);
      }
      return this;
    }
  };
}

/** node-pg options for DATABASE_URL `url`: as they are for one host; with a host chooser for a host list. */
export function pgConfig<T extends pg.PoolConfig>(url: string, options: T): T & pg.PoolConfig {
  const chooser = hostChooser(url);
  if (!chooser) return { ...options, connectionString: url };
  const first = chooser.url.hosts[0] as DatabaseHost;
  return { ...options, connectionString: chooser.url.forHost(first), Client: hostChoosingClient(chooser) };
}

/** A pg.Client on DATABASE_URL `url` (a session of its own: LISTEN, advisory locks), on the chosen host. */
export function pgClient(url: string, options: pg.ClientConfig = {}): pg.Client {
  const chooser = hostChooser(url);
  if (!chooser) return new pg.Client({ ...options, connectionString: url });
  const Client = hostChoosingClient(chooser);
  return new Client({ ...options, connectionString: chooser.url.forHost(chooser.url.hosts[0] as DatabaseHost) });
}

/**
 * A single-host URL of the host that qualifies now, for a tool that takes a URL and cannot choose
 * (it connects once, e.g. a migration run): `url` itself when it names one host.
 */
export async function chosenHostUrl(url: string): Promise<string> {
  const chooser = hostChooser(url);
  if (!chooser) return url;
  return chooser.url.forHost(await chooser.choose());
}
