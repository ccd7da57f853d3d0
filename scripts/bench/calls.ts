// npx tsx scripts/bench/calls.ts [--db pglite|postgres]: database calls per request of the token-issuing
// paths, counted in-process (BENCH_DB_TIMING=1), without an HTTP server or a build. Deterministic,
// so a change that saves a round trip shows here before any timing does. Warm: the first requests
// fill the read cache and the signing-key cache, then `N` requests of each kind are counted.
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ASSERTIONS_PER_SECOND, AssertionSupply, JWT_BEARER } from "./assertions";
import { inProcessServerDatabase } from "./db";

const { values: flags } = parseArgs({
  options: { db: { type: "string", default: "postgres" }, cpu: { type: "string" } },
});
const N = 20;
/** --cpu <n>: also run n requests of each kind, 50 at a time, and report CPU per request. */
const cpuRequests = flags.cpu ? Number(flags.cpu) : 0;

/** CPU seconds of every PostgreSQL process on this machine (Linux /proc), for the database's share. */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

async function main() {
  const kind = flags.db === "pglite" ? "pglite" : "postgres";
  const database = await inProcessServerDatabase(kind, "bench_calls", { BENCH_DB_TIMING: "1" });
  try {
    const { databaseHandle, disconnectDb } = await import("@/lib/db/client");
    const { deployMigrations } = await import("@/lib/db/migrations");
    const { dbTiming } = await import("@/lib/db/timing");
    const { seedForLoad } = await import("./seed");
    const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
    const { formRequest } = await import("@/lib/testing/oauth");
    const { exchangeForLocationToken } = await import("@/lib/oauth/location-token");
    const { verifyAccessToken } = await import("@/lib/tokens/access-token");
    await deployMigrations(databaseHandle().adapterFactory);
    const seed = await seedForLoad(2 * N + 4 + cpuRequests, () => {});
    let refresh = 0;
    let code = 0;
    const { installation } = seed;
    const assertions = new AssertionSupply(
      installation.key,
      installation.clientId,
      "http://localhost:3000/oauth/token",
    );
    // Signed before any request, so --cpu counts the server's work only.
    assertions.fill((2 * N + 4 + cpuRequests) / ASSERTIONS_PER_SECOND);
    const scenarios: Record<string, () => Promise<unknown>> = {
      refresh_token: () =>
        tokenEndpoint(
          formRequest("/oauth/token", {
            grant_type: "refresh_token",
            client_id: seed.refresh.clientId,
            client_secret: seed.refresh.clientSecret,
            refresh_token: seed.refresh.tokens[refresh++],
          }),
        ),
      authorization_code: () =>
        tokenEndpoint(
          formRequest("/oauth/token", {
            grant_type: "authorization_code",
            client_id: seed.codes.clientId,
            client_secret: seed.codes.clientSecret,
            code: seed.codes.codes[code++],
            user_type: "Location",
          }),
        ),
      client_credentials: () =>
        tokenEndpoint(
          formRequest("/oauth/token", {
            grant_type: "client_credentials",
            client_id: installation.clientId,
            client_assertion_type: JWT_BEARER,
            client_assertion: assertions.take(),
            companyId: seed.companyId,
          }),
        ),
      locationToken: async () => {
        const verified = await verifyAccessToken(seed.companyAccessToken);
        if (!verified.ok) throw new Error("the Company token does not verify");
        return exchangeForLocationToken({
          principal: verified.principal,
          form: { companyId: seed.companyId, locationId: seed.locationId },
          traceId: "calls",
        });
      },
    };
    // Let the cache's listener start.
    await new Promise((r) => setTimeout(r, 500));
    for (const [name, run] of Object.entries(scenarios)) {
      await run();
      await run();
      const before = dbTiming().calls;
      for (let i = 0; i < N; i++) await run();
      console.log(`${name}: ${(dbTiming().calls - before) / N} database calls per request`);
    }
    if (cpuRequests > 0) {
      for (const [name, run] of Object.entries(scenarios)) {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const pg = postgresCpuMs();
        let left = cpuRequests;
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            while (left-- > 0) await run();
          }),
        );
        const used = process.cpuUsage(cpu);
        const per = (ms: number) => (ms / cpuRequests).toFixed(2);
        console.log(
          `${name}: ${per(performance.now() - started)} ms wall, ${per((used.user + used.system) / 1000)} ms Node CPU, ${per(postgresCpuMs() - pg)} ms PostgreSQL CPU per request (${cpuRequests}, 50 at a time)`,
        );
      }
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
