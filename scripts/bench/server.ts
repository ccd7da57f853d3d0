import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The production server as `npm start` runs it (scripts/start.ts: migrations, build when stale,
 * next start), in its own process group so stopping it stops Next.js too.
 */
export interface BenchServer {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startServer(options: {
  port: number;
  databaseUrl: string;
  serverSecret: string;
  logFile: string;
  env?: Record<string, string>;
}): Promise<BenchServer> {
  const baseUrl = `http://localhost:${options.port}`;
  const log = openSync(options.logFile, "a");
  const child = spawn(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), "scripts/start.ts"], {
    detached: true,
    stdio: ["ignore", log, log],
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(options.port),
      APP_URL: baseUrl,
      NEXTAUTH_URL: baseUrl,
      DATABASE_URL: options.databaseUrl,
      SERVER_SECRET: options.serverSecret,
      LOG_LEVEL: "warn",
      ...options.env,
    },
  });
  const stop = async () => {
    if (child.exitCode !== null || !child.pid) return;
    const exited = new Promise((r) => child.once("exit", r));
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  };
  const deadline = Date.now() + 10 * 60_000; // a first build on 2 shared cores takes minutes
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(
        `The server exited (${child.exitCode}). Its log:\n${readFileSync(options.logFile, "utf8").slice(-4000)}`,
      );
    }
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `The server did not start in time. Its log:\n${readFileSync(options.logFile, "utf8").slice(-4000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { baseUrl, process: child, stop };
}

/** The server's cumulative database time (BENCH_DB_TIMING=1). */
export async function serverDbTime(baseUrl: string): Promise<{ calls: number; totalMs: number }> {
  const res = await fetch(`${baseUrl}/api/bench/db-time`);
  if (!res.ok) throw new Error(`GET /api/bench/db-time answered ${res.status}`);
  return (await res.json()) as { calls: number; totalMs: number };
}
