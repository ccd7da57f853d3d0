// npx tsx scripts/bench/alloc.ts [--n 20000] [--db pglite|postgres]: the V8 heap allocated per
// private-integration read (scenario (b)), in this process: the API's direct router (the route
// table's own handlers, as scripts/serve.mjs serves them) on a node:http server, read over raw
// keep-alive sockets that send one request buffer again and again. Beside it, the floor: the same
// server and client with a handler that writes a fixed answer by hand (node:http's and the client's
// own share, about what peer (L) allocates), so the difference is what our handling of the request
// costs. Allocation is read from V8's GC profiler: the heap used at the end, less at the start, plus
// what each collection freed meanwhile. Warm: the first requests fill the caches (the token, the
// sub-account), then the same count is measured twice.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { inProcessServerDatabase } from "./db";

const { values: flags } = parseArgs({
  options: { n: { type: "string", default: "20000" }, db: { type: "string", default: "pglite" } },
});
const N = Number(flags.n);
const SOCKETS = 10;

/** Bytes allocated on the V8 heap while `run` ran. */
async function allocatedDuring(run: () => Promise<void>): Promise<number> {
  const profiler = new v8.GCProfiler();
  const start = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  await run();
  const end = v8.getHeapStatistics().used_heap_size;
  const freed = (profiler.stop()?.statistics ?? []).reduce(
    (sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize,
    0,
  );
  return end - start + freed;
}

/** `count` requests of `request`, over SOCKETS keep-alive connections, each waiting for its answer. */
async function load(port: number, request: Buffer, count: number): Promise<void> {
  let left = count;
  const one = () =>
    new Promise<void>((done, fail) => {
      const socket = connect(port, "127.0.0.1");
      let pending = 0;
      const next = () => {
        if (left <= 0) {
          socket.end();
          done();
          return;
        }
        left -= 1;
        socket.write(request);
      };
      socket.on("connect", next);
      socket.on("error", fail);
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        // Each answer whole: its head, then Content-Length bytes of body.
        for (;;) {
          const head = received.indexOf("\r\n\r\n");
          if (head < 0) return;
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, head))?.[1] ?? 0);
          if (received.length < head + 4 + length) return;
          if (!received.startsWith("HTTP/1.1 2")) fail(new Error(`not a 2xx: ${received.slice(0, 80)}`));
          received = received.slice(head + 4 + length);
          pending += 1;
          next();
        }
      });
      socket.on("close", () => (pending ? done() : fail(new Error("closed before any answer"))));
    });
  await Promise.all(Array.from({ length: SOCKETS }, one));
}

async function main() {
  const kind = flags.db === "postgres" ? "postgres" : "pglite";
  const database = await inProcessServerDatabase(kind, "bench_alloc", { WEBHOOK_DISPATCHER: "off" });
  try {
    const { databaseHandle, disconnectDb } = await import("@/lib/db/client");
    const { deployMigrations } = await import("@/lib/db/migrations");
    await deployMigrations(databaseHandle().adapterFactory);
    const { makeAgency } = await import("@/lib/testing/fixtures");
    const { createPrivateIntegration } = await import("@/lib/integrations/lifecycle");
    const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const locationId = agency.locations[0]?.id as string;
    const { token } = await createPrivateIntegration(
      agency.owner,
      { level: "location", locationId },
      { name: "Alloc", description: "scripts/bench/alloc.ts", scopes: ["locations.readonly"] },
    );
    const { directRouter } = await import("@/lib/api/direct-router");
    const { apiRoutes } = await import("@/app/route-table");
    const router = directRouter(apiRoutes, "http://localhost:3000");
    const floorBody = JSON.stringify({ location: { id: locationId, name: "Floor" } });
    const floor = (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(floorBody),
        "cache-control": "no-store",
      });
      response.end(floorBody);
    };
    const serve = async (handler: (request: IncomingMessage, response: ServerResponse) => void) => {
      const server = createServer(handler);
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      return { server, port: (server.address() as AddressInfo).port };
    };
    const ours = await serve((request, response) => {
      if (!router(request, response)) response.writeHead(404).end();
    });
    const bare = await serve(floor);
    const request = Buffer.from(
      `GET /locations/${locationId} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nVersion: 2021-07-28\r\n\r\n`,
    );
    await load(ours.port, request, 2_000);
    await load(bare.port, request, 2_000);
    for (let round = 1; round <= 2; round++) {
      for (const [name, port] of [
        ["ours", ours.port],
        ["floor", bare.port],
      ] as const) {
        const started = performance.now();
        const bytes = await allocatedDuring(() => load(port, request, N));
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `round ${round} ${name.padEnd(5)} ${(bytes / N / 1024).toFixed(2)} KiB of V8 heap per request, ${(N / seconds).toFixed(0)} req/s in-process (${N} requests, ${SOCKETS} sockets)`,
        );
      }
    }
    for (const { server } of [ours, bare]) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
    await disconnectDb();
  } finally {
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
