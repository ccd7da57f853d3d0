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
// start only when R, Rh, R′ or N is among them, the bare app only for N, peer (L) only when one of its
// is; (b′) and the pairs (u)/(u′), (m)/(m′) and (t)/(t′) run when one of their ids is; ' stands for ′,
// so `--only "e',Le'"` selects (e′) and (Le′)), --cpu-prof <dir> (the server writes a V8 CPU profile there
// when it stops: open it in Chrome's DevTools, or summarise it with scripts/bench/profile.ts).
// Through a transaction-mode pooler (README › Behind a pooler), on PostgreSQL: --pgbouncer starts one
// (lib/testing/pgbouncer.ts), or BENCH_POOLER_URL=postgresql://…:6432/postgres?pgbouncer=true names
// one; then (b), (e) and (e′) also run on a second server of ours that reaches the database through
// it, as (bP), (eP) and (e′P), and peer (L)'s refreshes on it as (LeP) and (Le′P). --stages: our
// servers sum their time by stage (lib/stage-timing.ts), printed per request under the tables.
// --chain-client fetch|http: the client of the chained refreshes (e′), (R′), (Le′) (default fetch;
// scripts/bench/chains.ts). BENCH_DIST_DIR replaces .next-bench.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startPgbouncer } from "@/lib/testing/pgbouncer";
import { scrape } from "@/lib/testing/prometheus";
import { processListeningOn } from "./bench/cpu";
import { freshDatabase, postgresVersion } from "./bench/db";
import {
  CONNECTIONS,
  combine,
  limitScenarios,
  type Measurement,
  measure,
  peerScenarios,
  pooledScenarios,
  prepareScenario,
  type Scenario,
  scenarios,
} from "./bench/load";
import { startDiscardingOtlpReceiver } from "./bench/otlp-sink";
import { type Peer, startBareNext, startLimitPeer, startOidcProviderPeer } from "./bench/peers";
import {
  chainedTargets,
  type DatabaseRun,
  installationTokenTargets,
  keepHandKeptPart,
  limitTargets,
  machine,
  metricsCost,
  pgliteTargets,
  table,
  targets,
  turnOrder,
  usageCountingCost,
} from "./bench/report";
import { signInCookie } from "./bench/server";
import { loadGeneratorCost, stageTable } from "./bench/time-report";
import { tracesCost } from "./bench/traces-cost";
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
    pgbouncer: { type: "boolean", default: false },
    stages: { type: "boolean", default: false },
    "chain-client": { type: "string" },
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

// An ASCII ' for the prime of (b′), (e′), (Le′) and the rest, which a shell makes awkward to type.
const only = flags.only ? new Set(flags.only.split(",").map((id) => id.trim().replaceAll("'", "′"))) : undefined;
const selected = (id: string) => !only || only.has(id);

const labels = { pglite: "PGlite (embedded)", postgres: "PostgreSQL" } as const;

/** One side of an on/off pair of (b): its id, its server's port and what its environment adds. */
interface OnOff {
  id: string;
  name: string;
  port: number;
  env: Record<string, string>;
  /** Run once the server is warm, before its turns (PostgreSQL's pairs). */
  check?: () => Promise<void>;
}
type Kind = keyof typeof labels;

/** The scenarios run through a transaction-mode pooler, ours and peer (L)'s. */
const POOLED_IDS = ["bP", "eP", "e′P", "LeP", "Le′P"];

/** A transaction-mode pooler in front of the run's database: its URL for that database, and its process. */
interface Pooler {
  /** `?pgbouncer=true`: our server reaches the database through it, DATABASE_DIRECT_URL straight. */
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * BENCH_POOLER_URL (`postgresql://…@127.0.0.1:6433/postgres?pgbouncer=true`, a PgBouncer in
 * `pool_mode=transaction` in front of the bench's PostgreSQL), or one started for the run
 * (--pgbouncer), as many server connections as our pool holds. Undefined when neither.
 */
async function openPooler(databaseUrl: string): Promise<Pooler | undefined> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const named = process.env.BENCH_POOLER_URL;
  if (named) {
    const pooled = new URL(named);
    pooled.pathname = `/${database}`;
    const pid = processListeningOn(Number(pooled.port || 5432));
    say(`PostgreSQL through the pooler at ${pooled.host} (pgbouncer=true) too`);
    return { url: pooled.toString(), pid, stop: async () => {} };
  }
  if (!flags.pgbouncer) return undefined;
  const bouncer = await startPgbouncer({ serverUrl: databaseUrl, poolSize: 20 });
  say(`PostgreSQL through a PgBouncer of the run's own on port ${bouncer.port} (pool_mode=transaction) too`);
  return { url: bouncer.url(database), pid: bouncer.pid, stop: () => bouncer.stop() };
}

/** `url` as node-pg takes it (peer (L)): without the `pgbouncer` mark, which is ours. */
function withoutPgbouncerMark(url: string): string {
  const plain = new URL(url);
  plain.searchParams.delete("pgbouncer");
  return plain.toString();
}

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
    // ((L)'s refresh has outrun a smaller supply on a quiet machine, and a peer answering refusals
    // is not comparable: the targets line says so), for each scenario that draws on the supply: the
    // refreshes direct and through the pooler take turns on one (the chains only start from it).
    const tokensNeeded = Math.ceil((duration + warmup + 1) * 8_000);
    const runs = (id: string) => selected(id) && (kind === "postgres" || !POOLED_IDS.includes(id));
    const drawing = (ids: string[]) => tokensNeeded * Math.max(1, ids.filter(runs).length);
    // Peer (L), the limit, on our own database: PostgreSQL only, as the other peers.
    const limitPeer = kind === "postgres" && ["Lb", "Lc", "Le", "Le′", "LeP", "Le′P"].some(selected);
    const seed = await seedForLoad(drawing(["e", "eP"]), say, {
      limitPeer: limitPeer ? drawing(["Le", "LeP"]) : undefined,
    });
    // PGlite allows one process per data directory: the server takes it from here.
    await disconnectDb();

    // The peers, on PostgreSQL: the reference OAuth server on a database of its own of the same
    // PostgreSQL server, and the bare framework (the yardsticks the targets name).
    const peers: Peer[] = [];
    let peerRuns: Scenario[] = [];
    let peerDatabase: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    if (kind === "postgres" && ["R", "Rh", "R′", "N"].some(selected)) {
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

    if (limitPeer && ["Lb", "Lc", "Le", "Le′"].some(selected)) {
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
    const common = { port, serverSecret, logFile, databaseUrl: database.url };
    // Every check on: rate limits count every request (limits high enough never to refuse).
    // Database time counted; no webhook dispatcher polling (no app of the bench has a webhook URL).
    // --stages: our servers also sum their time by stage (lib/stage-timing.ts).
    const benchEnv = {
      BENCH_DB_TIMING: "1",
      WEBHOOK_DISPATCHER: "off",
      ...(flags.stages ? { BENCH_STAGE_TIMING: "1" } : {}),
    };
    const countingLimits = { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_DAILY: "1000000000" };
    say(`${labels[kind]}: starting the production server on port ${port} (log: ${logFile})`);
    // No server of its own when only the pairs below are selected (`--only m,m′`).
    // (s) is among the scenarios only with a cookie: any string asks whether it is selected.
    const pooled = kind === "postgres" && POOLED_IDS.some(selected) ? await openPooler(database.url) : undefined;
    const server = [...scenarios(seed, "?"), ...peerRuns, ...(pooled ? POOLED_IDS.map((id) => ({ id })) : [])].some(
      (s) => selected(s.id),
    )
      ? await startProductionServer({ ...common, env: { ...benchEnv, ...countingLimits } })
      : undefined;
    // The screen scenario (s) reads as a signed-in agency owner.
    const screenCookie =
      server && selected("s") ? await signInCookie(server.baseUrl, seed.screen.email, seed.screen.password) : undefined;
    // (b), (e) and (e′) again on a second server of ours that reaches the database through the
    // pooler (DATABASE_DIRECT_URL for what needs a session), and peer (L)'s refreshes on it.
    const poolerStops: (() => Promise<void>)[] = pooled ? [() => pooled.stop()] : [];
    let pooledRuns: Scenario[] = [];
    if (pooled && server) {
      say(`${labels[kind]}: starting a second production server, through the pooler, on port ${port + 11}`);
      const throughPooler = await startProductionServer({
        ...common,
        port: port + 11,
        databaseUrl: pooled.url,
        env: { ...benchEnv, ...countingLimits, DATABASE_DIRECT_URL: database.url },
      });
      poolerStops.unshift(() => throughPooler.stop());
      const pooledServer = { ...throughPooler, pid: throughPooler.process.pid as number };
      const pooledLimit = ["LeP", "Le′P"].some(selected)
        ? await startLimitPeer(withoutPgbouncerMark(pooled.url), port + 12, { unnamed: true })
        : undefined;
      if (pooledLimit) poolerStops.unshift(() => pooledLimit.stop());
      pooledRuns = pooledScenarios(seed, { server: pooledServer, poolerPid: pooled.pid, limit: pooledLimit });
    }
    const all = [...scenarios(seed, screenCookie), ...peerRuns, ...pooledRuns].filter((s) => selected(s.id));
    const measured = new Map<string, Measurement[]>(all.map((s) => [s.id, []]));
    try {
      for (let round = 0; server && round < rounds; round++) {
        for (const scenario of turnOrder(all)) {
          say(
            `${labels[kind]}: round ${round + 1}/${rounds}: (${scenario.id}) ${scenario.name} [load average ${load()}]`,
          );
          if (round === 0) await prepareScenario(server.baseUrl, scenario, warmup);
          measured.get(scenario.id)!.push(await measure(server, scenario, duration / rounds, postgres));
        }
      }
    } finally {
      await server?.stop();
      for (const peer of peers) await peer.stop();
      for (const stop of poolerStops) await stop();
      await peerDatabase?.drop();
    }
    const results = all.map((s) => combine(s, measured.get(s.id)!));
    // (b) again on servers of their own, for (b′) and the on/off pairs: selected by their own ids.
    const b = scenarios(seed).find((s) => s.id === "b") as Scenario;
    /** (b) once more, alone for `seconds`, on a server restarted with `extra` in its environment. */
    const turnAlone = async (id: string, name: string, extra: Record<string, string>, seconds: number) => {
      say(`${labels[kind]}: (${id}) ${name} [load average ${load()}]`);
      const alone = await startProductionServer({ ...common, env: { ...benchEnv, ...extra } });
      try {
        await prepareScenario(alone.baseUrl, b, warmup);
        return await measure(alone, b, seconds, postgres);
      } finally {
        await alone.stop();
      }
    };
    // (b) with the limits off (SPEC.md: 0, for load tests): what counting every request costs.
    if (selected("b′")) {
      const extra = { RATE_LIMIT_BURST: "0", RATE_LIMIT_DAILY: "0" };
      results.push({
        ...combine(b, [await turnAlone("b′", "rate limits off", extra, duration)]),
        id: "b′",
        name: `${b.name}, rate limits off`,
      });
    }
    /**
     * (b) on two fresh servers, one with a feature on and one with it off, measured alike: on
     * PostgreSQL up together, taking turns (the order swapped each round), so a change in a shared
     * machine's load falls on both, as it does on the scenarios above; on PGlite (one process per
     * data directory, lib/db/client.ts) each alone, one after the other, twice, in the order on, off,
     * off, on: whatever the order costs (the server before it stopping, the load moving) falls on both.
     */
    const onAndOff = async (pair: OnOff[]) => {
      if (!pair.some((one) => selected(one.id))) return;
      const turns: Measurement[][] = pair.map(() => []);
      if (kind === "pglite") {
        for (const i of [0, 1, 1, 0]) {
          const one = pair[i] as OnOff;
          turns[i]?.push(await turnAlone(one.id, one.name, { ...countingLimits, ...one.env }, duration / 2));
        }
      } else {
        const servers: Awaited<ReturnType<typeof startProductionServer>>[] = [];
        try {
          for (const one of pair) {
            servers.push(
              await startProductionServer({
                ...common,
                port: one.port,
                env: { ...benchEnv, ...countingLimits, ...one.env },
              }),
            );
          }
          for (const [i, one] of servers.entries()) {
            await prepareScenario(one.baseUrl, b, warmup);
            await pair[i]?.check?.();
          }
          const pairRounds = Math.max(2, rounds);
          for (let round = 0; round < pairRounds; round++) {
            for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
              const one = pair[i] as OnOff;
              say(`${labels[kind]}: (${one.id}) ${one.name}, turn ${round + 1}/${pairRounds} [load average ${load()}]`);
              turns[i]?.push(await measure(servers[i] as (typeof servers)[number], b, duration / pairRounds, postgres));
            }
          }
        } finally {
          for (const one of servers) await one.stop();
        }
      }
      pair.forEach((one, i) => {
        results.push({ ...combine(b, turns[i] ?? []), id: one.id, name: `${b.name}, ${one.name}` });
      });
    };
    // Usage counting (lib/usage/) on and off, same run: the target wants the two within 5%.
    await onAndOff([
      { id: "u", name: "usage counting on", port: port + 4, env: { API_USAGE_COUNTING: "on" } },
      { id: "u′", name: "usage counting off", port: port + 5, env: { API_USAGE_COUNTING: "off" } },
    ]);
    // Prometheus metrics (lib/metrics/) on (METRICS_PORT) and off: SPEC.md wants the cost within 3 %.
    const metricsPort = port + 8;
    await onAndOff([
      {
        id: "m",
        name: "metrics on",
        port: port + 6,
        env: { METRICS_PORT: String(metricsPort) },
        // Scraped once after the warm-up: the metrics are on and count (b)'s requests by its route.
        check: async () => {
          if (kind === "pglite") return;
          const { scraped } = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
          const counted = scraped.value("http_requests_total", { route: "/locations/{locationId}", status: "200" });
          if (!counted) throw new Error("(m): the metrics port does not count (b)'s requests.");
        },
      },
      { id: "m′", name: "metrics off", port: port + 7, env: {} },
    ]);
    // OpenTelemetry traces (lib/telemetry/) on, exported over OTLP/HTTP (protobuf) to a receiver
    // in this process that reads and discards them, and off: what tracing costs an operator.
    if (selected("t") || selected("t′")) {
      const receiver = await startDiscardingOtlpReceiver();
      try {
        await onAndOff([
          {
            id: "t",
            name: "traces on",
            port: port + 9,
            env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" },
            // Once after the warm-up: the server exports spans (the batch processor sends every 5 s).
            check: async () => {
              const deadline = Date.now() + 15_000;
              while (receiver.exports() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
              if (receiver.exports() === 0) throw new Error("(t): the server exported no spans.");
            },
          },
          { id: "t′", name: "traces off", port: port + 10, env: {} },
        ]);
      } finally {
        await receiver.close();
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
  process.env.NEXT_DIST_DIR = process.env.BENCH_DIST_DIR ?? ".next-bench";
  buildIfNeeded();
  const runs: DatabaseRun[] = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-"));
  for (const kind of kinds) {
    const out = join(dir, `${kind}.json`);
    const args = ["scripts/bench.ts", "--child", kind, "--out", out, "--duration", String(duration)];
    args.push("--warmup", String(warmup), "--port", String(port), "--rounds", String(rounds));
    if (flags.only) args.push("--only", flags.only);
    if (flags.pgbouncer) args.push("--pgbouncer");
    if (flags.stages) args.push("--stages");
    // The chained scenarios' client (scripts/bench/chains.ts); the children inherit it.
    if (flags["chain-client"]) process.env.BENCH_CHAIN_CLIENT = flags["chain-client"];
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
  /** The load generator's CPU per request; with --stages, where our requests' time went on the server. */
  const stagesOf = (run: DatabaseRun) => {
    const load = loadGeneratorCost(run);
    const stages = stageTable(run);
    return `${load ? `\n\nThe load generator's CPU per request (µs, on the same cores): ${load}.` : ""}${stages ? `\n\nTime per request by stage (ms; --stages):\n\n${stages}` : ""}`;
  };
  const sections = runs.map(
    (run) =>
      `### ${run.label}\n\n${table(run)}\n\nTargets (issue 11): ${targetLine(run)}.${run.database === "postgres" ? `\n\nTargets (issue 28): ${limitTargets(run)}.\n\nTarget (issue 40): ${installationTokenTargets(run)}.\n\nTargets (issue 44): ${chainedTargets(run)}.` : ""}\n\nUsage counting (issue 25): ${usageCountingCost(run)}.\n\nMetrics (SPEC.md, at most 3 %): ${metricsCost(run)}.\n\nTraces (SPEC.md): ${tracesCost(run)}.${stagesOf(run)}`,
  );
  console.log(`\nMeasured on ${machine(pgVersion)}.`);
  for (const section of sections) console.log(`\n${section}`);
  const markdown = [
    "# Benchmark results",
    "",
    `Measured ${new Date().toISOString()} on ${machine(pgVersion)}, with \`${command}\`.`,
    `${CONNECTIONS} connections; each scenario ${duration} s in ${rounds} turns of ${duration / rounds} s (scenarios take turns), after a ${warmup} s warm-up; rate limits on and counting every request (limits too high to refuse), (b′) one ${duration} s run on a server restarted with them off; (u) and (u′) (b) on two fresh servers with usage counting on and off, (m) and (m′) with the Prometheus metrics on (METRICS_PORT) and off, and (t) and (t′) with OpenTelemetry traces on (OTLP/HTTP protobuf to a local receiver that discards them) and off, ${duration} s each: on PostgreSQL up together, taking turns, on PGlite (one process per data directory) one after the other in two turns each (on, off, off, on). Load generated by autocannon in the same process tree, on the same cores as the server and database.`,
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
