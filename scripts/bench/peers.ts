import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { logTail } from "../support/production-server";

/**
 * The bench's peers, measured in the same run on the same machine (issue 11): node-oidc-provider 9
 * for the token endpoint, and a bare Next.js 16 route handler in an app of its own for the API.
 * Each runs in a process (group) of its own, as our server does.
 */

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");
const bareNextDir = resolve("scripts/bench/peers/bare-next");

export interface Peer {
  baseUrl: string;
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

/** node-oidc-provider on its own table in `databaseUrl`, with `tokens` refresh tokens seeded. */
export async function startOidcProviderPeer(
  databaseUrl: string,
  port: number,
  tokens: number,
): Promise<OidcProviderPeer> {
  const dir = mkdtempSync(join(tmpdir(), "bench-oidc-provider-"));
  const out = join(dir, "peer.json");
  const logFile = join(dir, "peer.log");
  const log = openSync(logFile, "a");
  const args = ["scripts/bench/peers/oidc-provider.ts", "--port", String(port), "--database", databaseUrl];
  args.push("--tokens", String(tokens), "--out", out);
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
  const seeded = JSON.parse(readFileSync(out, "utf8")) as Omit<OidcProviderPeer, "stop">;
  return { ...seeded, stop };
}

/** Builds the bare app once (it never changes), then serves it with `next start`. */
export async function startBareNext(port: number): Promise<Peer> {
  if (!existsSync(join(bareNextDir, ".next", "BUILD_ID"))) {
    const build = spawnSync(process.execPath, [nextBin, "build", bareNextDir], {
      stdio: "inherit",
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (build.status !== 0) throw new Error("The bare Next.js app did not build.");
  }
  const logFile = join(mkdtempSync(join(tmpdir(), "bench-bare-next-")), "server.log");
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, [nextBin, "start", bareNextDir, "-p", String(port)], {
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  closeSync(log);
  const stop = group(child);
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
  return { baseUrl, stop };
}
