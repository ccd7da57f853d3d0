// The CPU a measured turn costs: req/s swing with a shared machine's load, the CPU each
// request takes much less. Read from Linux's /proc, in the bench's process, between the turn's ends:
// - the server: the process of the server's process tree that holds the listening socket (not the
//   tsx or scripts/start.ts wrappers above it, nor the bench's autocannon), with its descendants;
// - PostgreSQL: the backends of the run's databases, and the server-wide processes (walwriter,
//   checkpointer, …) whose work they cause; not the backends of other databases, which other work
//   on a shared machine may be using.
// Elsewhere than Linux the readings are missing and the report shows "–".
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** USER_HZ: /proc's clock ticks per second, 100 on every Linux. */
const TICKS_PER_SECOND = 100;
const US_PER_TICK = 1e6 / TICKS_PER_SECOND;

const pids = () => readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
};
/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
// After the last ")": a process's name may itself hold ") ".
const statFields = (pid: string) => {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
};
/** utime + stime: the process's CPU, every thread's, in ticks. */
const ticksOf = (fields: string[]) => Number(fields[11]) + Number(fields[12]);

/** CPU ticks by process, for a delta over a turn. */
export type CpuSnapshot = Map<string, number>;

export function snapshot(processes: string[]): CpuSnapshot {
  const ticks: CpuSnapshot = new Map();
  for (const pid of processes) {
    const fields = statFields(pid);
    if (fields) ticks.set(pid, ticksOf(fields));
  }
  return ticks;
}

/**
 * The CPU (µs) used between two snapshots. A process that appeared meanwhile counts whole; one that
 * exited meanwhile is lost (its time went to its parent's reaped-children count).
 */
export function usedUs(before: CpuSnapshot, after: CpuSnapshot): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return ticks * US_PER_TICK;
}

/** `root` and its descendants. */
function tree(root: string): string[] {
  const children = new Map<string, string[]>();
  for (const pid of pids()) {
    const parent = statFields(pid)?.[1];
    if (parent) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i] as string) ?? []));
  return found;
}

/** The socket inodes listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of (read(table) ?? "").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEX_ADDRESS:HEX_PORT; state 0A is LISTEN; column 9 the inode.
      if (cols[3] === "0A" && Number.parseInt(cols[1]?.split(":")[1] ?? "", 16) === port && cols[9]) {
        inodes.add(cols[9]);
      }
    }
  }
  return inodes;
}

const holdsSocket = (pid: string, inodes: Set<string>) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? "");
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
};

/**
 * The process serving `port` in the process tree spawned as `root` (a wrapper: tsx runs its script
 * in a child, scripts/start.ts runs scripts/serve.mjs in another), with its own descendants; undefined
 * where /proc cannot tell.
 */
export function servingProcesses(root: number, port: number): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const serving = tree(String(root)).find((pid) => holdsSocket(pid, inodes));
  return serving ? tree(serving) : undefined;
}

/** The database a PostgreSQL process's title names, if it works for one (a client backend or an autovacuum worker). */
export function databaseOfTitle(title: string): string | undefined {
  // "postgres: [cluster: ]user database host(port) activity", or "… autovacuum worker database".
  const backend = /^postgres: (?:[^ ]+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/.exec(title);
  return backend?.[1] ?? /autovacuum worker (\S+)/.exec(title)?.[1];
}

/**
 * The PostgreSQL processes that serve `databases`: their backends, and the processes that work for
 * every database (postmaster, walwriter, checkpointer, …). Undefined where /proc cannot tell.
 */
export function postgresProcesses(databases: string[]): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  const ours = new Set(databases);
  return pids().filter((pid) => {
    if (read(`/proc/${pid}/comm`)?.trim() !== "postgres") return false;
    const title = (read(`/proc/${pid}/cmdline`) ?? "").replaceAll("\0", " ").trim();
    const database = databaseOfTitle(title);
    return database === undefined || ours.has(database);
  });
}

/** The process listening on `port` whatever started it (a pooler named by its URL), or undefined. */
export function processListeningOn(port: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const found = pids().find((pid) => holdsSocket(pid, inodes));
  return found === undefined ? undefined : Number(found);
}
