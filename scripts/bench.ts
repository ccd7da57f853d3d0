// Over 250 lines on purpose: the bench command's flags, its per-database child runs and the report
// are one order of work; its parts live in scripts/bench/.
// npm run bench: the load benchmark of README's Performance section (and `--scale`, the scale check).
// Flags: --db pglite|postgres|both (default both), --duration <s> per scenario (default 10),
// --rounds <n> (default 2: the scenarios take turns, duration/rounds each, so a change in the
// machine's load spreads over all of them), --warmup <s> (default 2), --port <n> (default 3105),
// --scale (part 2, PostgreSQL only), with --scale-sizes <n,n,...> (default 1000,1000000),
// --scale-days <n> (30), --scale-families <n> (1000), --scale-refreshes <per family a day> (24),
// --scale-installs <a day> (100) for the growth simulation, --scale-out <file> (bench-scale-results.md),
// --only <ids> (comma-separated scenario ids, e.g. e,g,f,R: a quick look at a few scenarios; the peers
// start only when R, Rh or N is among them, the bare app only for N, peer (L) only when Lb, Lc or Le is), --cpu-prof <dir> (the server writes a V8 CPU profile there
// when it stops: open it in Chrome's DevTools, or summarise it with scripts/bench/profile.ts).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { freshDatabase, postgresVersion } from "./bench/db";
import {
  CONNECTIONS,
  combine,
  limitScenarios,
  type Measurement,
  measure,
  peerScenarios,
  prepareScenario,
  type Scenario,
  scenarios,
} from "./bench/load";
import { type Peer, startBareNext, startLimitPeer, startOidcProviderPeer } from "./bench/peers";
import {
  type DatabaseRun,
  installationTokenTargets,
  keepHandKeptPart,
  limitTargets,
  machine,
  pgliteTargets,
  table,
  targets,
  turnOrder,
  usageCountingCost,
} from "./bench/report";
import { signInCookie } from "./bench/server";
import { buildIfNeeded } from "./build-if-needed";
import { startProductionServer } from "./support/production-server";

const say = (message: string) => console.log(`[bench] ${message}`);
/** The load average (1 / 5 / 15 min), logged beside every measurement: the machine may be shared. */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const { values: flags } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    rounds: { type: "string", default: "2" },
    port: { type: "string", default: "3105" },
    scale: { type: "boolean", default: false },
    "scale-sizes": { type: "string" },
    "scale-days": { type: "string" },
    "scale-families": { type: "string" },
    "scale-refreshes": { type: "string" },
    "scale-installs": { type: "string" },
    "scale-out": { type: "string" },
    only: { type: "string" },
    "cpu-prof": { type: "string" },
    // Internal: one database per child process, so no cache or connection outlives its run.
    child: { type: "string" },
    out: { type: "string" },
  },
});
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const port = Number(flags.port);
const rounds = Number(flags.rounds);
if (!(duration > 0) || !(warmup >= 0) || !(port > 0) || !(rounds >= 1)) {
  throw new Error("--duration, --rounds, --warmup and --port take positive numbers.");
}

const only = flags.only ? new Set(flags.only.split(",").map((id) => id.trim())) : undefined;
const selected = (id: string) => !only || only.has(id);

const labels = { pglite: "PGlite (embedded)", postgres: "PostgreSQL" } as const;
type Kind = keyof typeof labels;

/** Seeds a fresh database in this process, hands it to the server, and runs every scenario. */
async function runOne(kind: Kind): Promise<DatabaseRun> {
  const database = await freshDatabase(kind);
  const serverSecret = process.env.SERVER_SECRET ?? randomBytes(32).toString("hex");
  const logFile = join(mkdtempSync(join(tmpdir(), "bench-log-")), "server.log");
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    SERVER_SECRET: serverSecret,
    APP_URL: `http://localhost:${port}`,
    LOG_LEVEL: "warn",
  });
  try {
    const { databaseHandle, disconnectDb } = await import("@/lib/db/client");
    const { deployMigrations } = await import("@/lib/db/migrations");
    const { seedForLoad } = await import("./bench/seed");
    await deployMigrations(databaseHandle().adapterFactory);
    // Refresh tokens are single-use: enough for the fastest rate this machine could plausibly reach
    // ((L)'s refresh ran out of 3,000 a second on a quiet machine, and a peer answering refusals
    // is not comparable: the targets line says so).
    const tokensNeeded = Math.ceil((duration + warmup + 1) * 5_000);
    // Peer (L), the limit (issue 28), on our own database: PostgreSQL only, as the other peers.
    const limitPeer = kind === "postgres" && ["Lb", "Lc", "Le"].some(selected);
    const seed = await seedForLoad(tokensNeeded, say, { limitPeer });
    // PGlite allows one process per data directory: the server takes it from here.
    await disconnectDb();

    // The peers, on PostgreSQL: the reference OAuth server on a database of its own of the same
    // PostgreSQL server, and the bare framework (issue 11's yardsticks).
    const peers: Peer[] = [];
    let peerRuns: Scenario[] = [];
    let peerDatabase: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    if (kind === "postgres" && ["R", "Rh", "N"].some(selected)) {
      peerDatabase = await freshDatabase("postgres", "bench_peer");
      // The bare app is built first: only when (N) runs (an --only run of (R) or (Rh) skips its build).
      const bareToo = selected("N");
      say(
        `${labels[kind]}: starting node-oidc-provider (seeding ${tokensNeeded} refresh tokens)${bareToo ? " and a bare Next.js app" : ""}`,
      );
      const oidc = await startOidcProviderPeer(peerDatabase.url, port + 1, tokensNeeded, seed.installation);
      peers.push(oidc);
      // The servers' finally below is not reached yet: a peer that fails to start stops the one before it.
      const bare = bareToo
        ? await startBareNext(port + 2).catch(async (error: unknown) => {
            await oidc.stop();
            throw error;
          })
        : undefined;
      if (bare) peers.push(bare);
      peerRuns = peerScenarios(oidc, bare, seed);
    }

    if (limitPeer) {
      say(`${labels[kind]}: starting peer (L), the hand-written limit server, on port ${port + 3}`);
      const limit = await startLimitPeer(database.url, port + 3).catch(async (error: unknown) => {
        for (const peer of peers) await peer.stop();
        throw error;
      });
      peers.push(limit);
      peerRuns = [...peerRuns, ...limitScenarios(seed, limit)];
    }

    // The databases whose PostgreSQL backends' CPU each turn counts (none on PGlite: in the server's process).
    const postgres =
      kind === "postgres"
        ? [database.url, peerDatabase?.url].flatMap((url) => (url ? [new URL(url).pathname.slice(1)] : []))
        : undefined;
    const common = { port, databaseUrl: database.url, serverSecret, logFile };
    // Every check on: rate limits count every request (limits high enough never to refuse).
    // Database time counted; no webhook dispatcher polling (no app of the bench has a webhook URL).
    const benchEnv = { BENCH_DB_TIMING: "1", WEBHOOK_DISPATCHER: "off" };
    const countingLimits = { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_DAILY: "1000000000" };
    say(`${labels[kind]}: starting the production server on port ${port} (log: ${logFile})`);
    let server = await startProductionServer({ ...common, env: { ...benchEnv, ...countingLimits } });
    // The screen scenario (s) reads as a signed-in agency owner.
    const screenCookie = selected("s")
      ? await signInCookie(server.baseUrl, seed.screen.email, seed.screen.password)
      : undefined;
    const all = [...scenarios(seed, screenCookie), ...peerRuns].filter((s) => selected(s.id));
    const measured = new Map<string, Measurement[]>(all.map((s) => [s.id, []]));
    try {
      for (let round = 0; round < rounds; round++) {
        for (const scenario of turnOrder(all)) {
          say(
            `${labels[kind]}: round ${round + 1}/${rounds}: (${scenario.id}) ${scenario.name} [load average ${load()}]`,
          );
          if (round === 0) await prepareScenario(server.baseUrl, scenario, warmup);
          measured.get(scenario.id)!.push(await measure(server, scenario, duration / rounds, postgres));
        }
      }
    } finally {
      await server.stop();
      for (const peer of peers) await peer.stop();
      await peerDatabase?.drop();
    }
    const results = all.map((s) => combine(s, measured.get(s.id)!));
    const b = all.find((s) => s.id === "b");
    /** (b) once more, alone for `seconds`, on a server restarted with `extra` in its environment. */
    const turnAlone = async (id: string, name: string, extra: Record<string, string>, seconds: number) => {
      say(`${labels[kind]}: (${id}) ${name} [load average ${load()}]`);
      server = await startProductionServer({ ...common, env: { ...benchEnv, ...extra } });
      try {
        await prepareScenario(server.baseUrl, b as Scenario, warmup);
        return await measure(server, b as Scenario, seconds, postgres);
      } finally {
        await server.stop();
      }
    };
    const alone = async (id: string, name: string, extra: Record<string, string>) => {
      if (!b) return;
      results.push({ ...combine(b, [await turnAlone(id, name, extra, duration)]), id, name: `${b.name}, ${name}` });
    };
    // (b) with the limits off (SPEC.md: 0, for load tests): what counting every request costs.
    await alone("b′", "rate limits off", { RATE_LIMIT_BURST: "0", RATE_LIMIT_DAILY: "0" });
    // Usage counting (lib/usage/) on and off, same run: issue 25 wants the two within 5%.
    const pair = [
      { id: "u", name: "usage counting on", counting: "on", port: port + 4 },
      { id: "u′", name: "usage counting off", counting: "off", port: port + 5 },
    ];
    if (kind === "pglite" && b) {
      // PGlite allows one process per data directory (lib/db/client.ts): each alone on a fresh
      // server, one after the other, twice, in the order on, off, off, on: whatever the order
      // costs (the server before it stopping, the machine's load moving) falls on both.
      const turns: Measurement[][] = pair.map(() => []);
      for (const i of [0, 1, 1, 0]) {
        const one = pair[i] as (typeof pair)[number];
        const extra = { ...countingLimits, API_USAGE_COUNTING: one.counting };
        turns[i]?.push(await turnAlone(one.id, one.name, extra, duration / 2));
      }
      pair.forEach((one, i) => {
        results.push({ ...combine(b, turns[i] ?? []), id: one.id, name: `${b.name}, ${one.name}` });
      });
    } else if (b) {
      // PostgreSQL: two fresh servers up at once, taking turns (the order swapped each round), so a
      // change in a shared machine's load falls on both, as it does on the scenarios above.
      const servers: Awaited<ReturnType<typeof startProductionServer>>[] = [];
      try {
        for (const one of pair) {
          servers.push(
            await startProductionServer({
              ...common,
              port: one.port,
              env: { ...benchEnv, ...countingLimits, API_USAGE_COUNTING: one.counting },
            }),
          );
        }
        for (const one of servers) await prepareScenario(one.baseUrl, b, warmup);
        const turns: Measurement[][] = pair.map(() => []);
        const pairRounds = Math.max(2, rounds);
        for (let round = 0; round < pairRounds; round++) {
          for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
            const one = pair[i] as (typeof pair)[number];
            say(`${labels[kind]}: (${one.id}) ${one.name}, turn ${round + 1}/${pairRounds} [load average ${load()}]`);
            turns[i]?.push(await measure(servers[i] as (typeof servers)[number], b, duration / pairRounds, postgres));
          }
        }
        pair.forEach((one, i) => {
          results.push({ ...combine(b, turns[i] ?? []), id: one.id, name: `${b.name}, ${one.name}` });
        });
      } finally {
        for (const one of servers) await one.stop();
      }
    }
    return { database: kind, label: labels[kind], duration, connections: CONNECTIONS, results };
  } finally {
    await database.drop();
  }
}

async function main() {
  if (flags.scale) {
    const { runScale, SCALE_SIZES, DEFAULT_GROWTH } = await import("./bench/scale");
    const whole = (name: string, value: string | undefined, fallback: number, min: number) => {
      const n = value === undefined ? fallback : Number(value);
      if (!Number.isInteger(n) || n < min) throw new Error(`--${name} takes a whole number of at least ${min}.`);
      return n;
    };
    const sizes = flags["scale-sizes"]
      ? flags["scale-sizes"].split(",").map((v) => whole("scale-sizes", v.trim(), 0, 100))
      : SCALE_SIZES;
    if (sizes.length < 2 || sizes.some((n, i) => i > 0 && n <= (sizes[i - 1] as number))) {
      throw new Error("--scale-sizes takes two or more increasing sizes, such as 1000,20000.");
    }
    await runScale({
      sizes,
      growth: {
        days: whole("scale-days", flags["scale-days"], DEFAULT_GROWTH.days, 1),
        families: whole("scale-families", flags["scale-families"], DEFAULT_GROWTH.families, 1),
        refreshesPerDay: whole("scale-refreshes", flags["scale-refreshes"], DEFAULT_GROWTH.refreshesPerDay, 1),
        installsPerDay: whole("scale-installs", flags["scale-installs"], DEFAULT_GROWTH.installsPerDay, 0),
      },
      out: flags["scale-out"],
    });
    return;
  }
  if (flags.child) {
    const run = await runOne(flags.child as Kind);
    writeFileSync(flags.out as string, JSON.stringify(run));
    return;
  }
  const kinds: Kind[] = flags.db === "both" ? ["pglite", "postgres"] : [flags.db as Kind];
  if (!kinds.every((k) => k in labels)) throw new Error("--db takes pglite, postgres or both.");
  // One secret for the build and every server of this run (the children inherit it).
  process.env.SERVER_SECRET ??= randomBytes(32).toString("hex");
  // The bench's own build, beside the production one: only there is /api/bench/db-time routed
  // (next.config.mjs), which scripts/bench/server.ts reads. The children and servers inherit both.
  process.env.BENCH_BUILD = "1";
  process.env.NEXT_DIST_DIR = ".next-bench";
  buildIfNeeded();
  const runs: DatabaseRun[] = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-"));
  for (const kind of kinds) {
    const out = join(dir, `${kind}.json`);
    const args = ["scripts/bench.ts", "--child", kind, "--out", out, "--duration", String(duration)];
    args.push("--warmup", String(warmup), "--port", String(port), "--rounds", String(rounds));
    if (flags.only) args.push("--only", flags.only);
    if (flags["cpu-prof"]) process.env.SERVE_CPU_PROF_DIR = resolve(flags["cpu-prof"]);
    const child = spawnSync(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), ...args], {
      stdio: "inherit",
    });
    if (child.status !== 0) throw new Error(`The ${labels[kind]} run failed.`);
    runs.push(JSON.parse(readFileSync(out, "utf8")) as DatabaseRun);
  }
  const pgVersion = kinds.includes("postgres") ? await postgresVersion() : undefined;
  const command = `npm run bench -- --db ${flags.db} --duration ${duration} --rounds ${rounds} --warmup ${warmup}`;
  const postgresRun = runs.find((run) => run.database === "postgres");
  const targetLine = (run: DatabaseRun) =>
    run.database === "postgres" ? targets(run) : pgliteTargets(run, postgresRun);
  const sections = runs.map(
    (run) =>
      `### ${run.label}\n\n${table(run)}\n\nTargets (issue 11): ${targetLine(run)}.${run.database === "postgres" ? `\n\nTargets (issue 28): ${limitTargets(run)}.\n\nTarget (issue 40): ${installationTokenTargets(run)}.` : ""}\n\nUsage counting (issue 25): ${usageCountingCost(run)}.`,
  );
  console.log(`\nMeasured on ${machine(pgVersion)}.`);
  for (const section of sections) console.log(`\n${section}`);
  const markdown = [
    "# Benchmark results",
    "",
    `Measured ${new Date().toISOString()} on ${machine(pgVersion)}, with \`${command}\`.`,
    `${CONNECTIONS} connections; each scenario ${duration} s in ${rounds} turns of ${duration / rounds} s (scenarios take turns), after a ${warmup} s warm-up; rate limits on and counting every request (limits too high to refuse), (b′) one ${duration} s run on a server restarted with them off; (u) and (u′) (b) on two fresh servers with usage counting on and off, ${duration} s each: on PostgreSQL up together, taking turns, on PGlite (one process per data directory) one after the other in two turns each (on, off, off, on). Load generated by autocannon in the same process tree, on the same cores as the server and database.`,
    "Latencies in milliseconds: p50 the request-weighted mean of the turns' p50s, p99 the worst turn's. DB ms/req: time the server spent in database calls per request, including waiting for a pooled connection (BENCH_DB_TIMING=1). Ratio: req/s over (a)'s. CPU µs/req (user + system, from /proc, per request answered; less moved by a shared machine's load than req/s): the server's, the process serving the port (not the bench's load generator), and PostgreSQL's, its backends of the run's databases and its server-wide processes (– on PGlite, which runs in the server's process); issue 28's targets give ours (server + PostgreSQL) against the peer's.",
    "",
    sections.join("\n\n"),
    "",
  ].join("\n");
  if (only) {
    say("--only: a partial run, so bench-results.md is left as it was");
    return;
  }
  const previous = existsSync("bench-results.md") ? readFileSync("bench-results.md", "utf8") : "";
  writeFileSync("bench-results.md", keepHandKeptPart(markdown, previous));
  say("Wrote bench-results.md");
}

main().catch((error) => {
  console.error(`[bench] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
