// Over 250 lines on purpose: the scale check's bulk inserts, timed lookups at each size and the
// report of bench-scale-results.md are one run.
import { createHmac, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import pg from "pg";
import { freshDatabase, postgresVersion } from "./db";
import { type GrowthOptions, type GrowthResult, growthSummary, growthTable, simulateGrowth } from "./growth";
import { machine, markdownTable } from "./report";

/**
 * `npm run bench -- --scale`: does verification stay as fast with a million tokens as with a
 * thousand? On a fresh PostgreSQL database it bulk-inserts private-integration tokens (each with its
 * integration) and refresh tokens, 1,000 and then 1,000,000 of each, and at each size times, one call
 * after another and with the verification cache off (so every call is a database lookup):
 * - verifyPrivateIntegrationToken on distinct random tokens of the table;
 * - the refresh_token grant of POST /oauth/token (lib level, no HTTP) on distinct unused tokens.
 * It prints p50/p99 at each size and their ratio (target: within 1.2x). Then it simulates 30 days
 * of steady issuing with the pruner on (scripts/bench/growth.ts) and prints the rows left per table.
 * Smaller runs for a quick check: `--scale-sizes 1000,20000 --scale-families 20 --scale-out /tmp/x.md`.
 */

const say = (message: string) => console.log(`[scale] ${message}`);
export const SCALE_SIZES = [1_000, 1_000_000];

export interface ScaleOptions {
  /** Table sizes to measure at (the first and the last are compared); default 1,000 and 1,000,000. */
  sizes?: number[];
  /** The simulated days of issuing with the pruner on (scripts/bench/growth.ts). */
  growth?: GrowthOptions;
  /** Where the results go; default bench-scale-results.md. */
  out?: string;
}

export const DEFAULT_GROWTH: GrowthOptions = { days: 30, families: 1_000, refreshesPerDay: 24, installsPerDay: 100 };
const BATCH = 20_000;
const VERIFY_SAMPLES = 2_000;
const REFRESH_SAMPLES = 900;
const WARMUP = 100;

interface Latency {
  p50: number;
  p99: number;
  samples: number;
}

interface SizeResult {
  rows: number;
  insertSeconds: number;
  verify: Latency;
  refresh: Latency;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function time(calls: (() => Promise<void>)[], warmup: number): Promise<Latency> {
  const durations: number[] = [];
  for (const [i, call] of calls.entries()) {
    const start = performance.now();
    await call();
    if (i >= warmup) durations.push(performance.now() - start);
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p99: percentile(durations, 99), samples: durations.length };
}

/** Distinct random integers of [from, to). */
function sample(count: number, from: number, to: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, to - from)) picked.add(from + Math.floor(Math.random() * (to - from)));
  return [...picked];
}

export async function runScale(options: ScaleOptions = {}): Promise<void> {
  const SIZES = options.sizes ?? SCALE_SIZES;
  const growthOptions = options.growth ?? DEFAULT_GROWTH;
  const out = options.out ?? "bench-scale-results.md";
  const database = await freshDatabase("postgres", "bench_scale");
  const salt = randomBytes(16);
  const derive = (kind: string, n: number) => createHmac("sha256", salt).update(`${kind}:${n}`).digest();
  const pitToken = (n: number) => {
    const hex = derive("pit", n).toString("hex");
    return `pit-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  };
  const refreshToken = (n: number) => derive("rt", n).toString("base64url");

  Object.assign(process.env, {
    DATABASE_URL: database.url,
    SERVER_SECRET: randomBytes(32).toString("hex"),
    APP_URL: "http://localhost:3105",
    LOG_LEVEL: "warn",
  });
  const client = new pg.Client({ connectionString: database.url });
  try {
    const { databaseHandle, db, disconnectDb } = await import("@/lib/db/client");
    const { deployMigrations } = await import("@/lib/db/migrations");
    const { hashSecret } = await import("@/lib/crypto/secrets");
    const { verifyPrivateIntegrationToken, flushLastUsedWrites } = await import("@/lib/integrations/verify");
    const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
    const { formRequest, installAndExchange, makeApp } = await import("@/lib/testing/oauth");
    const { makeAgency, makeUser } = await import("@/lib/testing/fixtures");
    const { setReadCacheEnabled } = await import("@/lib/db/read-cache");
    setReadCacheEnabled(false);

    await deployMigrations(databaseHandle().adapterFactory);
    // The owners of the bulk rows, made through lib functions like any others.
    const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const locationId = agency.locations[0]!.id;
    const user = await makeUser(agency.company.id, "account_user", { locationIds: [locationId] });
    const app = await makeApp(agency.company.id);
    const first = await installAndExchange(user, app, { level: "location", locationId });
    const { grantId } = await db().refreshToken.findUniqueOrThrow({
      where: { id: String(first.refreshTokenId) },
      select: { grantId: true },
    });
    await client.connect();

    const insert = async (from: number, to: number) => {
      for (let start = from; start < to; start += BATCH) {
        const end = Math.min(to, start + BATCH);
        const ns: number[] = [];
        const pitHashes: string[] = [];
        const refreshHashes: string[] = [];
        for (let n = start; n < end; n++) {
          ns.push(n);
          pitHashes.push(hashSecret(pitToken(n)));
          refreshHashes.push(hashSecret(refreshToken(n)));
        }
        // One statement per table and batch: each integration with its current token.
        await client.query(
          `WITH x AS (SELECT * FROM unnest($1::int[], $2::text[]) AS x(n, hash)),
           i AS (
             INSERT INTO "PrivateIntegration" (id, "companyId", "locationId", name, scopes, "createdByUserId", "updatedAt")
             SELECT 'bench-pi-' || n, $3, $4, 'Bench ' || n, ARRAY['locations.readonly', 'contacts.write'], $5, now() FROM x
           )
           INSERT INTO "PrivateIntegrationToken" (id, "integrationId", slot, "tokenHash", hint)
           SELECT 'bench-pit-' || n, 'bench-pi-' || n, 'current', hash, 'pit-…' || right(hash, 4) FROM x`,
          [ns, pitHashes, agency.company.id, locationId, agency.owner.id],
        );
        await client.query(
          `INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt")
           SELECT 'bench-rt-' || n, hash, $3, now() + interval '365 days'
           FROM unnest($1::int[], $2::text[]) AS x(n, hash)`,
          [ns, refreshHashes, grantId],
        );
        if (end === to || (end - from) % 100_000 === 0)
          say(`  ${end.toLocaleString("en")} / ${to.toLocaleString("en")} rows of each`);
      }
      await client.query(`ANALYZE "PrivateIntegration", "PrivateIntegrationToken", "RefreshToken"`);
    };

    const results: SizeResult[] = [];
    let seeded = 0;
    let refreshUsedBelow = 0;
    for (const size of SIZES) {
      say(`inserting private-integration tokens and refresh tokens up to ${size.toLocaleString("en")} of each…`);
      const started = performance.now();
      await insert(seeded, size);
      const insertSeconds = (performance.now() - started) / 1000;
      seeded = size;

      const verifyCalls = sample(VERIFY_SAMPLES + WARMUP, 0, size).map((n) => async () => {
        const result = await verifyPrivateIntegrationToken(pitToken(n));
        if (!result.ok) throw new Error(`token ${n} did not verify: ${result.reason}`);
      });
      const verify = await time(verifyCalls, WARMUP);
      await flushLastUsedWrites();

      // Refresh tokens are single-use: each size uses ones no earlier measurement presented.
      const refreshCalls = sample(REFRESH_SAMPLES + WARMUP, refreshUsedBelow, size).map((n) => async () => {
        await tokenEndpoint(
          formRequest("/oauth/token", {
            grant_type: "refresh_token",
            client_id: app.app.clientId,
            client_secret: app.clientSecret,
            refresh_token: refreshToken(n),
          }),
        );
      });
      refreshUsedBelow = size;
      const refresh = await time(refreshCalls, WARMUP);
      results.push({ rows: size, insertSeconds, verify, refresh });
      say(
        `${size.toLocaleString("en")} rows: verify p50 ${verify.p50.toFixed(2)} ms p99 ${verify.p99.toFixed(2)} ms; refresh p50 ${refresh.p50.toFixed(2)} ms p99 ${refresh.p99.toFixed(2)} ms (insert ${insertSeconds.toFixed(1)} s)`,
      );
    }
    say(
      `simulating ${growthOptions.days} days of issuing with the pruner on (${growthOptions.families.toLocaleString("en")} installs refreshing ${growthOptions.refreshesPerDay} times a day, ${growthOptions.installsPerDay} installs a day)…`,
    );
    const { pruneOnce } = await import("@/lib/maintenance/prune");
    const owner = await db().tokenGrant.findUniqueOrThrow({
      where: { id: grantId },
      select: {
        appId: true,
        installationId: true,
        userType: true,
        companyId: true,
        locationId: true,
        userId: true,
      },
    });
    const growth: GrowthResult = await simulateGrowth(client, owner, growthOptions, pruneOnce, say);
    await disconnectDb();

    const small = results[0] as SizeResult;
    const large = results[results.length - 1] as SizeResult;
    const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(n));
    const ratio = (a: number, b: number) => (b / a).toFixed(2);
    const rows = markdownTable(
      ["Rows of each kind", "verify p50 ms", "verify p99 ms", "refresh p50 ms", "refresh p99 ms", "bulk insert s"],
      [
        ...results.map((r) => [
          r.rows.toLocaleString("en"),
          r.verify.p50.toFixed(2),
          r.verify.p99.toFixed(2),
          r.refresh.p50.toFixed(2),
          r.refresh.p99.toFixed(2),
          r.insertSeconds.toFixed(1),
        ]),
        [
          `ratio ${sizeLabel(large.rows)} / ${sizeLabel(small.rows)}`,
          ratio(small.verify.p50, large.verify.p50),
          ratio(small.verify.p99, large.verify.p99),
          ratio(small.refresh.p50, large.refresh.p50),
          ratio(small.refresh.p99, large.refresh.p99),
          "",
        ],
      ],
      () => true,
    );
    console.log(`\n${rows}\n`);
    const verdict = (name: string, a: number, b: number) =>
      `${name} p50 ${ratio(a, b)}x (${b / a <= 1.2 ? "within" : "over"} 1.2x)`;
    const summary = `${verdict("Verification", small.verify.p50, large.verify.p50)}; ${verdict("refresh", small.refresh.p50, large.refresh.p50)}.`;
    console.log(summary);
    const growthRows = growthTable(growth);
    console.log(`\n${growthRows}\n\n${growthSummary(growth)}`);
    writeFileSync(
      out,
      [
        "# Scale results",
        "",
        `Measured ${new Date().toISOString()} on ${machine(await postgresVersion())}, with \`npm run bench -- --scale\`.`,
        `Sequential calls in one process, verification cache off (every call is a database lookup): ${VERIFY_SAMPLES} verifications of distinct random private-integration tokens, ${REFRESH_SAMPLES} refresh_token grants of distinct unused refresh tokens, each after ${WARMUP} unmeasured calls. Each private-integration token has its own integration; the refresh tokens belong to one grant.`,
        "",
        rows,
        "",
        summary,
        "",
        "## Rows after simulated days of issuing, with the pruner on",
        "",
        growthRows,
        "",
        growthSummary(growth),
        "",
      ].join("\n"),
    );
    say(`Wrote ${out}`);
  } finally {
    await client.end().catch(() => {});
    await database.drop();
  }
}
