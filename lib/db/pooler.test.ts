// Over 250 lines on purpose: one real PgBouncer for every session-state rule it checks (prepared
// statements, LISTEN, the migration lock, the pruner), started once for the file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { resetEnvCache } from "@/lib/env";
import { pruneOnce } from "@/lib/maintenance/prune";
import { apiClient } from "@/lib/testing/api-client";
import { withAgencyApp } from "@/lib/testing/oauth";
import { type Pgbouncer, pgbouncerBinary, startPgbouncer } from "@/lib/testing/pgbouncer";
import { filesBelow, isTestFile } from "@/lib/testing/source-tree";
import { openDatabase } from "./adapter";
import { databaseHandle, db, disconnectDb, newPrismaClient } from "./client";
import { runHotStatement } from "./hot-statement";
import { deployMigrationsFor } from "./migrations";
import { PREPARED } from "./prepared";
import { listenForStateChanges } from "./state-listener";

/**
 * Behind a transaction-mode pooler (`?pgbouncer=true`, ./pooler-url.ts): a real PgBouncer
 * (`pool_mode=transaction`, 3 server connections, so client sessions really share them) started
 * by this file in front of the suite's PostgreSQL database, and this file's process database moved
 * behind it. Runs on PostgreSQL (TEST_DATABASE_URL) with the `pgbouncer` package installed.
 */

const sqlState = (error: unknown) => String((error as { code?: unknown })?.code ?? "");
const SESSION_STATEMENT_ERRORS = new Set(["42P05", "26000"]);

const onPostgres = (process.env.DATABASE_URL ?? "").startsWith("postgres");

// scripts/pooler-suite.ts runs this and other files with the whole suite behind a PgBouncer.
describe.runIf(Boolean(process.env.TEST_POOLER_URL))("the suite itself behind the pooler", () => {
  it("the process's database is marked pooled, with DATABASE_DIRECT_URL for its sessions", () => {
    expect(databaseHandle().pooled).toBe(true);
    expect(databaseHandle().sessionUrl).toBe(process.env.DATABASE_DIRECT_URL);
    expect(process.env.DATABASE_URL).toMatch(/[?&]pgbouncer=true/);
  });
});

describe.runIf(onPostgres && pgbouncerBinary() !== undefined)("behind PgBouncer in transaction mode", () => {
  let bouncer: Pgbouncer;
  let directUrl: string;
  let pooledUrl: string;
  const saved = { url: process.env.DATABASE_URL, direct: process.env.DATABASE_DIRECT_URL };
  const api = apiClient(apiRoutes);

  beforeAll(async () => {
    // The suite's database on the server itself (DATABASE_DIRECT_URL when the suite is pooled already).
    directUrl = databaseHandle().sessionUrl as string;
    bouncer = await startPgbouncer({ serverUrl: directUrl, poolSize: 3 });
    pooledUrl = bouncer.url(new URL(directUrl).pathname.slice(1));
    await disconnectDb();
    process.env.DATABASE_URL = pooledUrl;
    process.env.DATABASE_DIRECT_URL = directUrl;
    resetEnvCache();
  });

  afterAll(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = saved.url;
    if (saved.direct === undefined) delete process.env.DATABASE_DIRECT_URL;
    else process.env.DATABASE_DIRECT_URL = saved.direct;
    resetEnvCache();
    await bouncer?.stop();
  });

  const world = withAgencyApp(2);

  async function onServer<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: directUrl });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  /**
   * Granted advisory locks on this database (others' test runs share the server) whose key's low
   * 32 bits are `keySql`'s: Prisma's migration lock (72707369) or a `hashtext` key.
   */
  async function advisoryLocksHeld(keySql: string, values: unknown[] = []): Promise<number | undefined> {
    const [row] = await onServer<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND objid::bigint = ((${keySql})::bigint & 4294967295)`,
      values,
    );
    return row?.n;
  }

  it("the process's database is marked pooled: no counters pool with startup options, session work on the direct URL", () => {
    const handle = databaseHandle();
    expect(handle.pooled).toBe(true);
    expect(handle.countersPool).toBeUndefined();
    expect(handle.sessionUrl).toBe(directUrl);
  });

  it("hot statements and PREPARED-marked Prisma statements run unnamed: no 42P05/26000 under concurrency", async () => {
    const runs = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        i % 2
          ? runHotStatement<{ n: number }>("SELECT $1::int + 1 AS n", [i])
          : db().$queryRaw<{ n: number }[]>`${PREPARED}SELECT ${i}::int + 1 AS n`,
      ),
    );
    const failed = runs.filter((r) => r.status === "rejected").map((r) => sqlState(r.reason));
    expect(failed).toEqual([]);
    expect(runs.map((r) => (r.status === "fulfilled" ? r.value[0]?.n : undefined))).toEqual(
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
    // No server connection behind the pooler holds a named statement.
    const counts = await Promise.all(
      Array.from({ length: 12 }, () =>
        db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_prepared_statements`.then((r) => r[0]?.n),
      ),
    );
    expect(new Set(counts)).toEqual(new Set([0]));
  });

  it("20 concurrent refreshes of one token and 20 location-token calls: every one 200, none 500", async () => {
    const { agency, app, refreshToken, companyToken } = world;
    const refreshes = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post("/oauth/token", {
          form: {
            grant_type: "refresh_token",
            client_id: app.app.clientId,
            client_secret: app.clientSecret,
            refresh_token: refreshToken,
          },
        }),
      ),
    );
    expect(refreshes.map((r) => r.status)).toEqual(Array(20).fill(200));
    const locationTokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post("/oauth/locationToken", {
          token: companyToken,
          form: { companyId: agency.company.id, locationId: agency.locations[i % 2]!.id },
        }),
      ),
    );
    expect(locationTokens.map((r) => r.status)).toEqual(Array(20).fill(200));
    // The tokens work through the pooler too (bearer check, rate-limit counters).
    const reads = await Promise.all(
      locationTokens.map((r, i) =>
        api.get(`/locations/${agency.locations[i % 2]!.id}`, { token: String(r.body.access_token) }),
      ),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(20).fill(200));
  });

  it("the read cache's LISTEN runs on DATABASE_DIRECT_URL and hears a NOTIFY sent through the pooler", async () => {
    const heard: string[] = [];
    let listening!: () => void;
    const ready = new Promise<void>((done) => {
      listening = done;
    });
    const listener = listenForStateChanges(databaseHandle(), {
      changed: (table) => heard.push(table ?? ""),
      missed: () => {},
      listening: () => listening(),
    });
    try {
      await ready;
      const [backend] = await onServer<{ port: number | null }>(
        "SELECT client_port AS port FROM pg_stat_activity WHERE pid = $1",
        [listener.pid],
      );
      // A backend of its own, reached straight from this process (not one of PgBouncer's).
      expect(backend).toBeDefined();
      await db().$executeRaw`SELECT pg_notify('token_state', 'PoolerProbe')`;
      const deadline = Date.now() + 5_000;
      while (!heard.includes("PoolerProbe") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toContain("PoolerProbe");
    } finally {
      await listener.stop();
    }
  });

  it("two instances starting together through the pooler both migrate, and no advisory lock stays held", async () => {
    const handles = [openDatabase(pooledUrl, directUrl), openDatabase(pooledUrl, directUrl)];
    try {
      const started = Date.now();
      const applied = await Promise.all(handles.map((h) => deployMigrationsFor(h)));
      expect(applied).toEqual([[], []]);
      expect(Date.now() - started).toBeLessThan(20_000);
      // A third start right after is not kept waiting either.
      expect(await deployMigrationsFor(openDatabase(pooledUrl, directUrl))).toEqual([]);
      // The schema engine's session-level lock (pg_advisory_lock(72707369)) went with its direct session.
      expect(await advisoryLocksHeld("72707369")).toBe(0);
      // Each instance's own client works through the pooler.
      const prisma = newPrismaClient(handles[1]!.adapterFactory);
      expect(await prisma.$queryRawUnsafe("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      await prisma.$disconnect();
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  });

  it("three pruners at once through the pooler: transaction-scoped advisory locks, one prunes at a time, none fails", async () => {
    const runs = await Promise.all(
      Array.from({ length: 3 }, () => pruneOnce({ companyIds: [world.agency.company.id], pauseMs: 0 })),
    );
    expect(runs.every((r) => r.batches > 0 || r.skipped)).toBe(true);
    expect(await advisoryLocksHeld("hashtext($1)", ["maintenance:prune"])).toBe(0);
  });

  // Last: it leaves named statements on PgBouncer's server connections.
  it("control: the same statements named through the pooler fail with 42P05/26000 (what the flag prevents)", async () => {
    const pool = new pg.Pool({ connectionString: pooledUrl.replace("?pgbouncer=true", ""), max: 20 });
    try {
      const target = { pool, prisma: db() };
      const runs = await Promise.allSettled(
        Array.from({ length: 300 }, (_, i) => runHotStatement("SELECT $1::int + 2 AS n", [i], target)),
      );
      const states = runs.filter((r) => r.status === "rejected").map((r) => sqlState(r.reason));
      expect(states.length).toBeGreaterThan(0);
      expect(states.every((s) => SESSION_STATEMENT_ERRORS.has(s))).toBe(true);
    } finally {
      await pool.end();
    }
  });
});

/** Production code under lib/: every statement that might meet a pooler, as source text. */
function productionSources(): string[] {
  return filesBelow("lib", /\.tsx?$/).filter(
    (path) => !isTestFile(path) && !path.startsWith(join("lib", "testing", "")),
  );
}

describe("no session state in production code (what a transaction-mode pooler would lose)", () => {
  it("advisory locks are transaction-scoped, LISTEN only in the state listener, no session-level set_config", () => {
    const offenders: string[] = [];
    for (const file of productionSources()) {
      const text = readFileSync(file, "utf8");
      if (/pg_(try_)?advisory_lock(_shared)?\s*\(|pg_advisory_unlock/.test(text))
        offenders.push(`${file}: session lock`);
      if (/set_config\([^)]*,\s*false\s*\)/i.test(text)) offenders.push(`${file}: session set_config`);
      if (/[`"']\s*LISTEN\s/.test(text) && !file.endsWith(join("db", "state-listener.ts")))
        offenders.push(`${file}: LISTEN`);
    }
    expect(offenders).toEqual([]);
  });
});
