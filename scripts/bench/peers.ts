import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HEAP_FLAGS } from "../support/heap-flags";
import { logTail } from "../support/production-server";

/**
 * The bench's peers, measured in the same run on the same machine: node-oidc-provider 9
 * for the token endpoint, and a bare Next.js 16 route handler in an app of its own for the API.
 * Each runs in a process (group) of its own, as our server does.
 */

const bareNextDir = resolve("scripts/bench/peers/bare-next");

export interface Peer {
  baseUrl: string;
  /** The spawned process, the root of the peer's process group. */
  pid: number;
  stop(): Promise<void>;
}

export interface OidcProviderPeer extends Peer {
  clientId: string;
  clientSecret: string;
  refreshTokens: string[];
}

function group(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  return async () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-(child.pid as number), "SIGKILL");
        } catch {
          // already gone
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
}

/**
 * node-oidc-provider on its own table in `databaseUrl`, with `tokens` refresh tokens seeded, and
 * `keyClient` (our installation-token app's client_id and public JWK) as a private_key_jwt client
 * of the client_credentials grant.
 */
export async function startOidcProviderPeer(
  databaseUrl: string,
  port: number,
  tokens: number,
  keyClient: { clientId: string; publicJwk: Record<string, unknown> },
): Promise<OidcProviderPeer> {
  const dir = mkdtempSync(join(tmpdir(), "bench-oidc-provider-"));
  const out = join(dir, "peer.json");
  const logFile = join(dir, "peer.log");
  const log = openSync(logFile, "a");
  const args = ["scripts/bench/peers/oidc-provider.ts", "--port", String(port), "--database", databaseUrl];
  args.push("--tokens", String(tokens), "--out", out);
  args.push("--key-client", keyClient.clientId, "--key-jwk", JSON.stringify(keyClient.publicJwk));
  const child = spawn(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), ...args], {
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, NODE_ENV: "production" },
  });
  closeSync(log);
  const stop = group(child);
  const deadline = Date.now() + 5 * 60_000;
  while (!existsSync(out) || !readFileSync(logFile, "utf8").includes("ready")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`node-oidc-provider did not start. The end of ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const seeded = JSON.parse(readFileSync(out, "utf8")) as Omit<OidcProviderPeer, "stop" | "pid">;
  return { ...seeded, pid: child.pid as number, stop };
}

/**
 * Builds the bare app in a folder of its own outside the project, then serves it with `next start`.
 * Built inside the project, Next.js 16 would take the project's proxy.ts and instrumentation.ts
 * from the workspace root (the folder with the lock file) into the peer: an inert proxy alone cost
 * the bare route much of its throughput (bench-results.md › Figures the code rests on). The
 * project's node_modules are hard-linked (a copy where the temporary folder is on another file system).
 */
export async function startBareNext(port: number): Promise<Peer> {
  const appDir = mkdtempSync(join(tmpdir(), "bench-bare-next-"));
  const removeApp = () => rmSync(appDir, { recursive: true, force: true });
  cpSync(bareNextDir, appDir, { recursive: true, filter: (source) => !source.includes(".next") });
  const linked = spawnSync("cp", ["-al", resolve("node_modules"), join(appDir, "node_modules")]);
  if (linked.status !== 0) cpSync(resolve("node_modules"), join(appDir, "node_modules"), { recursive: true });
  const appNextBin = join(appDir, "node_modules/next/dist/bin/next");
  const build = spawnSync(process.execPath, [appNextBin, "build", appDir], {
    cwd: appDir,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) {
    removeApp();
    throw new Error("The bare Next.js app did not build.");
  }
  const logFile = join(mkdtempSync(join(tmpdir(), "bench-bare-next-")), "server.log");
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, [appNextBin, "start", appDir, "-p", String(port)], {
    cwd: appDir,
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  closeSync(log);
  const stopServer = group(child);
  const stop = async () => {
    await stopServer();
    removeApp();
  };
  const baseUrl = `http://localhost:${port}`;
  const deadline = Date.now() + 2 * 60_000;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/api/ok`, { signal: AbortSignal.timeout(2_000) })).ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The bare Next.js app did not start. The end of ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseUrl, pid: child.pid as number, stop };
}

/**
 * Peer (L), the physical limit: scripts/bench/peers/limit.ts on our own database, in a
 * process (group) of its own. SERVER_SECRET and APP_URL are the bench's, so it hashes tokens as we do.
 * `unnamed`: its statement runs unnamed (on a transaction-mode pooler).
 */
export async function startLimitPeer(
  databaseUrl: string,
  port: number,
  options: { unnamed?: boolean } = {},
): Promise<Peer> {
  const logFile = join(mkdtempSync(join(tmpdir(), "bench-limit-")), "peer.log");
  const log = openSync(logFile, "a");
  // One process (tsx as a loader, not a launcher), so it takes the server's V8 flags.
  const args = [...HEAP_FLAGS, "--import", "tsx", "scripts/bench/peers/limit.ts"];
  args.push("--port", String(port), "--database", databaseUrl);
  if (options.unnamed) args.push("--unnamed");
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, NODE_ENV: "production" },
  });
  closeSync(log);
  const stop = group(child);
  const deadline = Date.now() + 60_000;
  while (!readFileSync(logFile, "utf8").includes("ready")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Peer (L) did not start. The end of ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { baseUrl: `http://localhost:${port}`, pid: child.pid as number, stop };
}
