// A test's database: PGlite in memory restored from the migrated snapshot (PGLITE_TEMPLATE, made by
// lib/testing/global-setup.ts), in the test's own thread (./adapter.ts) or on the database thread
// (./pglite-thread-worker.mjs). Plain JavaScript so that the thread, loaded by path, imports it too.
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";

/**
 * Two things made most of each restore's CPU, and neither is the test's: PGlite reads the snapshot
 * with `Blob.arrayBuffer()`, which for a Blob made of a Buffer streams it through in chunks, so the
 * file's bytes are handed over in one piece; and it zeroes its buffer pool when it starts (128 MB by
 * default), where a test's database fits in 16 MB.
 * @param {string} path the snapshot's tarball
 * @returns {PGlite}
 */
export function restoreSnapshot(path) {
  const bytes = readFileSync(path);
  const snapshot = Object.assign(new Blob([]), { arrayBuffer: async () => new Uint8Array(bytes).buffer });
  return new PGlite({
    loadDataDir: snapshot,
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  });
}
