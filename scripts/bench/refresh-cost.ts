// npx tsx scripts/bench/refresh-cost.ts [--n 2000] [--only a,b] [--keep]: CPU per rotating refresh,
// ours beside peer (L)'s one statement, 50 at a time on a fresh PostgreSQL database:
// - ours: lib/oauth/token-endpoint in-process (no HTTP);
// - ours-prisma: our statement's text (captured from the driver) through Prisma's $queryRawUnsafe;
// - ours-sql: the same text through a pg.Pool: Prisma and the rest of the Node side left out;
// - limit: scripts/bench/peers/limit.ts's statement through a pg.Pool.
// VARIANTS=a.sql,b.sql adds texts that take our statement's parameters (an A/B of the statement);
// SETUP=s.sql runs once before them (a function a variant calls, say); UNNAMED=1 sends ours-sql,
// limit and the variants unnamed, parsed and planned every time, as behind a transaction-mode
// pooler (PgBouncer before 1.21); REPEAT=k runs the selection k times in turn (the first round
// warms the machine's caches).
// PostgreSQL's CPU is counted on the backends of this database only (pg_stat_activity and
// /proc/<pid>/schedstat), so other databases on the machine do not count. --keep leaves the
// database and writes our statement to /tmp/refresh-cost-ours.json, for EXPLAIN.
import { createHmac, hkdfSync, randomBytes, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { freshDatabase } from "./db";
import { LIMIT_ROTATE } from "./peers/limit-statement";

const { values: flags } = parseArgs({
  options: { n: { type: "string", default: "2000" }, keep: { type: "boolean" }, only: { type: "string" } },
});
const N = Number(flags.n);
const CONCURRENCY = 50;

/** CPU time of a process in ms, from /proc/<pid>/schedstat (nanoseconds on the CPU). */
function procCpuMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return 0;
  }
}

/** Whether a row of ours (the function's JSON, or a variant's own columns) issued. */
const issued = (row: { issued?: boolean; redemption?: { issued?: boolean } } | undefined) =>
  row?.issued ?? row?.redemption?.issued ?? false;

async function main() {
  const database = await freshDatabase("postgres", "refresh_cost");
  const secret = randomBytes(32).toString("hex");
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    SERVER_SECRET: secret,
    APP_URL: "http://localhost:3000",
    LOG_LEVEL: "warn",
  });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const dbName = new URL(database.url).pathname.slice(1);
  /** CPU of every backend of this database except `admin`'s own. */
  const backendCpu = new Map<number, number>();
  async function pgCpuMs(): Promise<number> {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [dbName],
    );
    for (const { pid } of rows) backendCpu.set(pid, procCpuMs(pid));
    let total = 0;
    for (const ms of backendCpu.values()) total += ms;
    return total;
  }
  try {
    const captured: { text?: string; values?: unknown[]; name?: string } = {};
    const { REDEMPTION_FUNCTION } = await import("@/lib/oauth/grants/redemption");
    const originalQuery = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { text?: string; values?: unknown[]; name?: string } | string;
      if (typeof config === "object" && config?.text?.includes(`"${REDEMPTION_FUNCTION}"(`)) {
        Object.assign(captured, config);
      }
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;

    const { databaseHandle, disconnectDb } = await import("@/lib/db/client");
    const { deployMigrations } = await import("@/lib/db/migrations");
    const { seedForLoad } = await import("./seed");
    const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
    const { formRequest } = await import("@/lib/testing/oauth");
    await deployMigrations(databaseHandle().adapterFactory);
    const seed = await seedForLoad(N + 10, () => {}, { limitPeer: N + 10 });
    const limitSeed = seed.limitRefresh!;
    const sqlTokens = [...limitSeed.tokens.splice(0, Math.floor(limitSeed.tokens.length / 2))];
    await new Promise((r) => setTimeout(r, 500));

    let next = 0;
    let last: Record<string, unknown> = {};
    const ours = async () => {
      last = await tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "refresh_token",
          client_id: seed.refresh.clientId,
          client_secret: seed.refresh.clientSecret,
          refresh_token: seed.refresh.tokens[next++]!,
        }),
      );
      if (!last.access_token) throw new Error("no access token");
    };
    for (let i = 0; i < 6; i++) await ours(); // warm: caches, named statement, generic plan
    pg.Client.prototype.query = originalQuery;
    if (!captured.text) throw new Error("the refresh statement was not captured");

    const pool = new pg.Pool({ connectionString: database.url, max: 20 });
    const hashKey = Buffer.from(hkdfSync("sha256", secret, "token-service", "secret-hash", 32));
    const keyedHash = (value: string) => createHmac("sha256", hashKey).update(value, "utf8").digest("hex");
    const { rows: apps } = await pool.query<{ id: string }>(`SELECT id FROM "App" WHERE "clientId" = $1`, [
      limitSeed.clientId,
    ]);
    const appId = apps[0]!.id;

    // Our statement's text with fresh values where they must differ: the presented token's hash,
    // the successor's id and hash, the access token's jti.
    const template = captured.values ?? [];
    const at = (value: unknown) => {
      const found = template.flatMap((v, i) => (v === value ? [i] : []));
      if (found.length === 0) throw new Error(`value not found in the captured statement: ${String(value)}`);
      return found;
    };
    const jti = JSON.parse(Buffer.from(String(last.access_token).split(".")[1]!, "base64url").toString()).jti;
    const indexes = {
      presented: at(keyedHash(seed.refresh.tokens[next - 1]!)),
      successorId: at(last.refreshTokenId),
      successorHash: at(keyedHash(String(last.refresh_token))),
      jti: at(jti),
    };
    let sqlNext = 0;
    const freshValues = () => {
      const values = [...template];
      const fresh = {
        presented: keyedHash(sqlTokens[sqlNext++]!),
        successorId: randomUUID(),
        successorHash: keyedHash(randomBytes(32).toString("base64url")),
        jti: randomUUID(),
      };
      for (const [key, at] of Object.entries(indexes)) for (const i of at) values[i] = fresh[key as keyof typeof fresh];
      return values;
    };
    const unnamed = process.env.UNNAMED === "1";
    const named = (name: string) => (unnamed ? {} : { name });
    const oursSql = async () => {
      const values = freshValues();
      const { rows } = await pool.query({ ...named("refresh-cost-ours"), text: captured.text!, values });
      if (!issued(rows[0])) throw new Error(`ours-sql did not issue: ${JSON.stringify(rows[0])}`);
    };

    let limitNext = 0;
    const limit = async () => {
      const now = new Date();
      const iat = Math.floor(now.getTime() / 1000);
      const values = [
        keyedHash(limitSeed.tokens[limitNext++]!),
        appId,
        randomUUID(),
        keyedHash(randomBytes(32).toString("base64url")),
        new Date(now.getTime() + 365 * 86_400_000).toISOString(),
        now.toISOString(),
        randomUUID(),
        new Date((iat + 86_399) * 1000).toISOString(),
      ];
      const { rows } = await pool.query({ ...named("limit-rotate"), text: LIMIT_ROTATE, values });
      if (!rows[0]) throw new Error("limit did not issue");
    };

    const { db } = await import("@/lib/db/client");
    // The same statement through Prisma's $queryRawUnsafe: what Prisma's runtime adds to the driver.
    const oursPrisma = async () => {
      const values = freshValues();
      const rows = await db().$queryRawUnsafe<{ issued: boolean }[]>(captured.text!, ...values);
      if (!issued(rows[0])) throw new Error(`ours-prisma did not issue: ${JSON.stringify(rows[0])}`);
    };
    const scenarios: Record<string, () => Promise<void>> = {
      ours,
      "ours-prisma": oursPrisma,
      "ours-sql": oursSql,
      limit,
    };
    if (process.env.SETUP) await pool.query(readFileSync(process.env.SETUP, "utf8"));
    // VARIANTS=a.sql,b.sql: other texts with the same parameters as ours, for A/B of the statement.
    for (const file of (process.env.VARIANTS ?? "").split(",").filter(Boolean)) {
      const text = readFileSync(file, "utf8");
      const name = file.replace(/^.*\//, "");
      scenarios[name] = async () => {
        const values = freshValues();
        const { rows } = await pool.query({ ...named(`v-${name}`), text, values });
        if (!issued(rows[0])) throw new Error(`${name} did not issue: ${JSON.stringify(rows[0])}`);
      };
    }
    // REPEAT=k: the selected scenarios k times in turn, each with count/k requests.
    const repeat = Number(process.env.REPEAT ?? 1);
    const names = Object.keys(scenarios).filter((n) => !flags.only || flags.only.split(",").includes(n));
    const count = Math.floor((Math.floor(N / 2) - 20 - 20 * names.length * repeat) / (names.length * repeat));
    for (let round = 0; round < repeat; round++) {
      for (const name of names) {
        const run = scenarios[name]!;
        for (let i = 0; i < 5; i++) await run();
        const started = performance.now();
        const cpu = process.cpuUsage();
        const pgBefore = await pgCpuMs();
        let left = count;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (left-- > 0) await run();
          }),
        );
        const used = process.cpuUsage(cpu);
        const pgUsed = (await pgCpuMs()) - pgBefore;
        const per = (ms: number) => (ms / count).toFixed(3);
        console.log(
          `${name.padEnd(12)} ${per(performance.now() - started)} ms wall, ${per((used.user + used.system) / 1000)} ms Node CPU, ${per(pgUsed)} ms PostgreSQL CPU per refresh (${count}, ${CONCURRENCY} at a time)`,
        );
      }
    }
    if (flags.keep) {
      console.log(`kept ${database.url}`);
      writeFileSync("/tmp/refresh-cost-ours.json", JSON.stringify({ ...captured, appId }));
      console.log("ours: /tmp/refresh-cost-ours.json (text, values, name)");
    }
    await pool.end();
    await disconnectDb();
  } finally {
    await admin.end();
    if (!flags.keep) await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
