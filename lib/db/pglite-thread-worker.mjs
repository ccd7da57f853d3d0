// The embedded database's own thread (./pglite-thread.ts starts it): PGlite and its Prisma driver
// adapter live here, so a statement's WASM work and the decoding of its answer no longer hold up
// the server's event loop. Plain JavaScript, loaded by path: Next.js does not bundle it.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { restoreSnapshot } from "./pglite-snapshot.mjs";

// `template` (tests): an in-memory database restored from a migrated snapshot.
const pglite = workerData.template ? restoreSnapshot(workerData.template) : new PGlite(workerData.dataDir);
const ready = new PrismaPGlite(pglite).connect();
/** Open transactions by the number the main thread knows them by. */
const transactions = new Map();
let lastTransaction = 0;
const unlisteners = new Map();

/** What crosses back for an error: a database error keeps its driver-adapter payload. */
function errorAnswer(error) {
  if (error && error.name === "DriverAdapterError" && typeof error.cause === "object") {
    return { driverAdapterError: error.cause, message: error.message };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

function transaction(id) {
  const open = transactions.get(id);
  if (!open) throw new Error(`No open transaction ${id} on the database thread.`);
  return open;
}

const operations = {
  queryRaw: async ({ tx, query }) => (tx ? transaction(tx) : await ready).queryRaw(query),
  executeRaw: async ({ tx, query }) => (tx ? transaction(tx) : await ready).executeRaw(query),
  // The adapter's executeScript does not wait for PGlite's exec; this does.
  executeScript: async ({ script }) => {
    await ready;
    await pglite.exec(script);
  },
  startTransaction: async ({ isolationLevel }) => {
    const opened = await (await ready).startTransaction(isolationLevel);
    lastTransaction += 1;
    transactions.set(lastTransaction, opened);
    return { tx: lastTransaction, options: opened.options };
  },
  commit: async ({ tx }) => {
    const open = transaction(tx);
    transactions.delete(tx);
    await open.commit();
  },
  rollback: async ({ tx }) => {
    const open = transaction(tx);
    transactions.delete(tx);
    await open.rollback();
  },
  listen: async ({ channel }) => {
    if (unlisteners.has(channel)) return;
    const off = await pglite.listen(channel, (payload) =>
      parentPort.postMessage({ notification: { channel, payload } }),
    );
    unlisteners.set(channel, off);
  },
  unlisten: async ({ channel }) => {
    const off = unlisteners.get(channel);
    unlisteners.delete(channel);
    await off?.();
  },
  close: async () => {
    // A PGlite that never opened has nothing to flush (and its close would throw).
    const opened = await pglite.waitReady.then(
      () => true,
      () => false,
    );
    if (opened && !pglite.closed) await pglite.close();
  },
};

parentPort.on("message", async ({ id, op, ...request }) => {
  try {
    const value = await operations[op](request);
    parentPort.postMessage({ id, value });
  } catch (error) {
    parentPort.postMessage({ id, error: errorAnswer(error) });
  }
});
