import { execFileSync } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port";

/**
 * A PostgreSQL primary and a synchronous streaming standby of it, made from scratch in a temporary
 * directory (initdb, pg_basebackup -R) for the failover test (lib/db/failover.test.ts). PostgreSQL
 * refuses to run as root, so its programs run as the `postgres` user (runuser) on data directories
 * it owns; both listen on 127.0.0.1 on free ports, their sockets in the directory.
 */

const tools = ["initdb", "pg_ctl", "pg_basebackup", "postgres", "psql"] as const;

/** The directory holding the PostgreSQL server programs, if this machine has them. */
function binDir(): string | undefined {
  const candidates = ["/usr/local/bin"];
  if (existsSync("/usr/lib/postgresql")) {
    const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  // One directory with all of them: pg_basebackup is not in /usr/local/bin everywhere.
  return candidates.find((dir) => tools.every((tool) => existsSync(join(dir, tool))));
}

function hasPostgresUser(): boolean {
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Why the cluster cannot be made here (undefined: it can): the test is skipped with this sentence. */
export function standbyClusterUnavailable(): string | undefined {
  if (process.platform !== "linux") return "it needs Linux";
  if (process.getuid?.() !== 0) return "it runs the PostgreSQL servers as the postgres user, which needs root";
  if (!binDir()) return `the PostgreSQL server programs (${tools.join(", ")}) are not installed`;
  if (!existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser")) return "runuser is missing";
  if (!hasPostgresUser()) return "there is no postgres user";
  return undefined;
}

export interface StandbyCluster {
  primaryPort: number;
  standbyPort: number;
  /** `postgresql://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/postgres?target_session_attrs=read-write` */
  url: string;
  /** The primary stops at once, as in a crash (`pg_ctl stop -m immediate`). */
  stopPrimary(): void;
  /** The standby becomes the primary (`pg_ctl promote`, waiting until it takes writes). */
  promoteStandby(): void;
  /** Stops both servers and removes the directory. */
  remove(): void;
}

/** Starts the primary, copies it into a standby with pg_basebackup -R, and waits until the standby is synchronous. */
export async function startStandbyCluster(): Promise<StandbyCluster> {
  const bin = binDir();
  if (!bin) throw new Error("PostgreSQL server programs not found");
  const dir = mkdtempSync(join(tmpdir(), "failover-"));
  chownSync(dir, uidOf("postgres"), gidOf("postgres"));
  const primary = join(dir, "primary");
  const standby = join(dir, "standby");
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const asPostgres = (tool: string, args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", join(bin, tool), ...args], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    }).toString();
  const psql = (port: number, sql: string) =>
    execFileSync(
      "runuser",
      ["-u", "postgres", "--", join(bin, "psql"), "-X", "-A", "-t", "-h", dir, "-p", String(port)],
      { input: sql, stdio: ["pipe", "pipe", "pipe"], timeout: 10_000 },
    ).toString();
  const pgCtl = (data: string, ...args: string[]) => asPostgres("pg_ctl", ["-D", data, ...args]);

  const common = [
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    "fsync = off", // a test cluster: an immediate stop keeps the OS cache, the host does not crash
    "shared_buffers = 16MB",
    "max_connections = 60",
    "wal_level = replica",
    "max_wal_senders = 4",
    "hot_standby = on",
  ];
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    for (const data of [primary, standby]) {
      if (existsSync(join(data, "postmaster.pid"))) {
        try {
          pgCtl(data, "stop", "-m", "immediate", "-w");
        } catch {
          // already stopped
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    asPostgres("initdb", ["-D", primary, "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8", "--locale=C"]);
    appendFileSync(
      join(primary, "postgresql.conf"),
      [
        ...common,
        `port = ${primaryPort}`,
        // A commit is acknowledged only once the standby has its WAL on disk: no acknowledged
        // write is lost when the standby is promoted.
        "synchronous_standby_names = 'standby1'",
        "synchronous_commit = on",
        "",
      ].join("\n"),
    );
    pgCtl(primary, "-l", join(dir, "primary.log"), "-w", "start");
    asPostgres("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      standby,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
    ]);
    appendFileSync(
      join(standby, "postgresql.conf"),
      [
        `port = ${standbyPort}`,
        // Once promoted it has no standby of its own: it must not wait for one.
        "synchronous_standby_names = ''",
        "",
      ].join("\n"),
    );
    // pg_basebackup -R wrote primary_conninfo; the name is what synchronous_standby_names waits for.
    appendFileSync(
      join(standby, "postgresql.auto.conf"),
      `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby1'\n`,
    );
    pgCtl(standby, "-l", join(dir, "standby.log"), "-w", "start");
    const deadline = Date.now() + 20_000;
    while (!psql(primaryPort, "SELECT sync_state FROM pg_stat_replication;").includes("sync")) {
      if (Date.now() > deadline) throw new Error("the standby did not become synchronous within 20 s");
      await new Promise((done) => setTimeout(done, 100));
    }
  } catch (error) {
    remove();
    throw error;
  }
  // A test process that dies (killed, timed out) leaves no server running: pg_ctl's servers outlive it.
  process.once("exit", remove);
  return {
    primaryPort,
    standbyPort,
    url: `postgresql://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/postgres?target_session_attrs=read-write`,
    stopPrimary: () => pgCtl(primary, "stop", "-m", "immediate", "-w"),
    promoteStandby: () => pgCtl(standby, "promote", "-w"),
    remove,
  };
}

function uidOf(user: string): number {
  return Number(execFileSync("id", ["-u", user]).toString().trim());
}

function gidOf(user: string): number {
  return Number(execFileSync("id", ["-g", user]).toString().trim());
}
