import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { type ProductionServer, startProductionServer } from "../support/production-server";

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
  /** Starts (or restarts) the server and waits until /api/health answers; milliseconds it took. */
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
  let server: ProductionServer | undefined;
  const instance: Instance = {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    logFile,
    async start() {
      server = await startProductionServer({
        port,
        databaseUrl,
        serverSecret: stressSecret,
        logFile,
        host: "127.0.0.1",
        env: { WEBHOOK_ALLOW_PRIVATE: "1", LOG_LEVEL: "info", ...extraEnv },
      });
      instance.process = server.process;
      return server.startMs;
    },
    async kill() {
      await server?.kill();
    },
    async stop() {
      await server?.stop();
    },
  };
  return instance;
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

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
