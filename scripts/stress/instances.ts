import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";

/** Production servers started the way a user does (`npm start`), for the multi-instance and crash tests. */

export const stressDir = resolve(
  "test-results/stress",
  process.env.STRESS_PORT ?? String(Number(process.env.E2E_PORT ?? 3100) + 80),
);
export const stressSecret = "stress-server-secret-stress-server-secret-0123456789";

export interface Instance {
  name: string;
  url: string;
  port: number;
  logFile: string;
  process?: ChildProcess;
  /** Starts (or restarts) the server and waits until /api/health answers. */
  start(): Promise<number>;
  /** SIGKILL to the whole process group: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM, waiting for the exit. */
  stop(): Promise<void>;
}

export function makeInstance(
  name: string,
  port: number,
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
): Instance {
  mkdirSync(stressDir, { recursive: true });
  const logFile = resolve(stressDir, `${name}.log`);
  const url = `http://127.0.0.1:${port}`;
  let exited: Promise<void> = Promise.resolve();
  const instance: Instance = {
    name,
    url,
    port,
    logFile,
    async start() {
      const started = Date.now();
      const log = openSync(logFile, "a");
      const child = spawn(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), "scripts/start.ts"], {
        detached: true,
        stdio: ["ignore", log, log],
        env: {
          ...process.env,
          PORT: String(port),
          APP_URL: extraEnv.APP_URL ?? url,
          NEXTAUTH_URL: extraEnv.APP_URL ?? url,
          DATABASE_URL: databaseUrl,
          SERVER_SECRET: stressSecret,
          WEBHOOK_ALLOW_PRIVATE: "1",
          LOG_LEVEL: "info",
          NODE_ENV: "production",
          ...extraEnv,
        },
      });
      closeSync(log);
      instance.process = child;
      exited = new Promise((done) => child.once("exit", () => done()));
      const deadline = Date.now() + 8 * 60_000; // may build the app first
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`${name} exited while starting. The end of ${logFile}:\n${tail(logFile)}`);
        }
        try {
          const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
          if (res.ok) return Date.now() - started;
        } catch {
          // not up yet
        }
        if (Date.now() > deadline) throw new Error(`${name} did not start in 8 minutes. ${tail(logFile)}`);
        await sleep(250);
      }
    },
    async kill() {
      signalGroup(instance.process, "SIGKILL");
      await exited;
    },
    async stop() {
      signalGroup(instance.process, "SIGTERM");
      const timeout = sleep(15_000).then(() => signalGroup(instance.process, "SIGKILL"));
      await Promise.race([exited, timeout]);
      await exited;
    },
  };
  return instance;
}

function signalGroup(child: ChildProcess | undefined, signal: NodeJS.Signals) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the group: tsx, scripts/start.ts and next start
  } catch {
    // already gone
  }
}

export function tail(file: string, chars = 3000): string {
  try {
    return readFileSync(file, "utf8").slice(-chars);
  } catch {
    return "(no log)";
  }
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** A fresh PostgreSQL database on the server of `serverUrl`; `drop` removes it. */
export async function freshPostgresDatabase(serverUrl: string, prefix: string) {
  const pg = (await import("pg")).default;
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface SlowReceiver {
  url: string;
  /** Every webhook-id whose delivery completed (answered 200 on a live connection), with how often. */
  seen: Map<string, number>;
  requests: number;
  inFlight: number;
  /** Deliveries whose sender hung up before the answer (killed mid-delivery). */
  cutOff: number;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 after `delayMs`, so deliveries stay in flight. */
export async function startSlowReceiver(delayMs: number): Promise<SlowReceiver> {
  const receiver: SlowReceiver = {
    url: "",
    seen: new Map(),
    requests: 0,
    inFlight: 0,
    cutOff: 0,
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    receiver.requests++;
    receiver.inFlight++;
    const id = String(request.headers["webhook-id"] ?? "");
    request.resume();
    request.on("end", () => {
      setTimeout(() => {
        receiver.inFlight--;
        if (request.socket.destroyed) {
          receiver.cutOff++;
          return;
        }
        receiver.seen.set(id, (receiver.seen.get(id) ?? 0) + 1);
        response.writeHead(200, { connection: "close" }).end("ok");
      }, delayMs);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  };
  return receiver;
}
