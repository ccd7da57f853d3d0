import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port";

/**
 * A real PgBouncer in `pool_mode=transaction` (Debian's `pgbouncer` package, 1.18 on CI) in front
 * of the test PostgreSQL server, on a port of its own, with its config in a temporary directory:
 * every database name is passed through to the server, `auth_type=trust`. Run as root it drops to
 * the `postgres` user (PgBouncer refuses to run as root).
 */
export interface Pgbouncer {
  port: number;
  /** Its process (the bench counts its CPU). */
  pid: number | undefined;
  /** `database` through the pooler, marked `?pgbouncer=true`. */
  url(database: string): string;
  /** The server's log so far (errors PgBouncer saw). */
  log(): string;
  stop(): Promise<void>;
}

/** The pgbouncer binary, or undefined when the package is not installed. */
export function pgbouncerBinary(): string | undefined {
  for (const path of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"])
    if (existsSync(path)) return path;
  const which = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
    socket.connect(port, "127.0.0.1");
  });
}

export interface PgbouncerOptions {
  /** The PostgreSQL server behind it (its host and port are used); default 127.0.0.1:5432. */
  serverUrl?: string;
  /** Default: a free port. */
  port?: number;
  /** Server connections per database and user: small, so client sessions really share them. */
  poolSize?: number;
}

export async function startPgbouncer(options: PgbouncerOptions = {}): Promise<Pgbouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error("pgbouncer is not installed (apt-get install -y pgbouncer)");
  const server = new URL(options.serverUrl ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "pgbouncer-"));
  chmodSync(dir, 0o755);
  const users = join(dir, "users.txt");
  writeFileSync(users, `"${decodeURIComponent(server.username || "postgres")}" ""\n`, { mode: 0o644 });
  const config = join(dir, "pgbouncer.ini");
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${users}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 4}`,
      "max_client_conn = 2000",
      "max_db_connections = 0",
      "server_check_delay = 0",
      "log_connections = 0",
      "log_disconnections = 0",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  let exited = false;
  const exit = new Promise<void>((done) =>
    child.once("exit", () => {
      exited = true;
      done();
    }),
  );
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start on port ${port}: ${output.trim()}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  const user = server.username || "postgres";
  return {
    port,
    pid: child.pid,
    url: (database) => `postgresql://${user}@127.0.0.1:${port}/${database}?pgbouncer=true`,
    log: () => output,
    stop: async () => {
      if (!exited) child.kill("SIGINT");
      await Promise.race([exit, new Promise((done) => setTimeout(done, 5_000))]);
      if (!exited) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
