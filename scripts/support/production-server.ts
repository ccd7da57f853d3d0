import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The production server as a user starts it (`npm start`: scripts/start.ts migrates, seeds, builds
 * when stale, then scripts/serve.mjs, which serves Next.js), in a process group of its own so a signal reaches Next.js
 * too. One helper for everything that drives a real server: the e2e suite, the bench and the
 * multi-instance and crash tests.
 */
export interface ProductionServer {
  baseUrl: string;
  process: ChildProcess;
  logFile: string;
  /** Milliseconds from the spawn until /api/health answered. */
  startMs: number;
  /** SIGTERM to the group, waiting for the exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
  /** SIGKILL to the group: no shutdown code runs. */
  kill(): Promise<void>;
}

export interface ServerOptions {
  port: number;
  databaseUrl: string;
  serverSecret: string;
  /** Appended to; the server's stdout and stderr. */
  logFile: string;
  /** Default `localhost`. */
  host?: string;
  /** Overrides of the environment (APP_URL, LOG_LEVEL, limits, seed…). */
  env?: Record<string, string>;
}

/** Starts the server and waits until /api/health answers (a first build on 2 shared cores takes minutes). */
export async function startProductionServer(options: ServerOptions): Promise<ProductionServer> {
  const started = Date.now();
  const baseUrl = `http://${options.host ?? "localhost"}:${options.port}`;
  const appUrl = options.env?.APP_URL ?? baseUrl;
  const log = openSync(options.logFile, "a");
  const child = spawn(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), "scripts/start.ts"], {
    detached: true,
    stdio: ["ignore", log, log],
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(options.port),
      APP_URL: appUrl,
      NEXTAUTH_URL: appUrl,
      DATABASE_URL: options.databaseUrl,
      SERVER_SECRET: options.serverSecret,
      LOG_LEVEL: "warn",
      ...options.env,
    },
  });
  closeSync(log);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const signal = (name: NodeJS.Signals) => {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, name); // the group: tsx, scripts/start.ts and scripts/serve.mjs
    } catch {
      // already gone
    }
  };
  const server: ProductionServer = {
    baseUrl,
    process: child,
    logFile: options.logFile,
    startMs: 0,
    async stop() {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      signal("SIGKILL");
      await exited;
    },
  };
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`The server exited while starting. The end of ${options.logFile}:\n${logTail(options.logFile)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(
        `The server did not start in 10 minutes. The end of ${options.logFile}:\n${logTail(options.logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  server.startMs = Date.now() - started;
  return server;
}

export function logTail(file: string, chars = 4000): string {
  try {
    return readFileSync(file, "utf8").slice(-chars);
  } catch {
    return "(no log)";
  }
}
