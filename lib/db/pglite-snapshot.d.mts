import type { PGlite } from "@electric-sql/pglite";

/** A test's in-memory PGlite restored from the migrated snapshot at `path` (./pglite-snapshot.mjs). */
export declare function restoreSnapshot(path: string): PGlite;
