// Over 250 lines on purpose: the scenarios (a)–(u′) and the peers', and how each is checked, warmed
// up, measured and combined, read together as the table they produce.
import autocannon, { type AutocannonRequest, type Result } from "autocannon";
import { AssertionSupply, JWT_BEARER } from "./assertions";
import { chainClient, chainScenario } from "./chain-scenarios";
import { postgresProcesses, servingProcesses, snapshot, usedUs } from "./cpu";
import type { OidcProviderPeer, Peer } from "./peers";
import type { LoadSeed } from "./seed";
import { type StageSums, serverDbTime, stagesBetween, sumStages } from "./server";

/** 50, the targets' figure; BENCH_CONNECTIONS sets fewer for a quick look that must not load a shared machine. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VERSION = "2021-07-28";

export interface Scenario {
  id: string;
  name: string;
  /** The status every answer must have for the run to count. */
  expect: number;
  requests: AutocannonRequest[];
  /** Set when a scenario consumes something per request: how many requests it can still make. */
  remaining?: () => number;
  /** A peer's scenario runs against the peer's own server (and has no database timing of ours). */
  baseUrl?: string;
  /** The peer's process, the root of its process tree: its serving process's CPU is measured. */
  pid?: number;
  /** Fewer connections than CONNECTIONS (a screen is loaded by people, not by 50 clients at once). */
  connections?: number;
  /**
   * Set when each request needs something made fresh just before the load (client assertions: a
   * unique `jti`, a short life): makes enough for `seconds` of load, before the measured time.
   */
  fill?: (seconds: number) => void;
  /** How many of those the last load had to make itself, in its measured time (the supply outrun). */
  madeDuringLoad?: () => number;
  /**
   * Set when the scenario makes its own load instead of autocannon's (the chained refreshes,
   * ./chain-scenarios.ts): `seconds` of it against `baseUrl`; `warmup`: unmeasured, and any refusal throws.
   */
  drive?: (baseUrl: string, seconds: number, warmup: boolean) => Promise<LoadResult>;
  /** One of our servers at `baseUrl` (one through the pooler): its database time is read as ours is. */
  ourServer?: boolean;
  /** A pooler between that server and PostgreSQL: its process's CPU counts with PostgreSQL's. */
  poolerPid?: number;
}

/** What one load of a scenario gave: answers, time, latencies (ms) and failures. */
export interface LoadResult {
  total: number;
  seconds: number;
  /** The mean latency (ms), beside the server's own time per request (--stages). */
  mean: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** The load generator's own CPU over the load (µs): autocannon's (this process), or the chained client's. */
  loadCpuUs: number;
}

export interface ScenarioResult {
  id: string;
  name: string;
  requestsPerSecond: number;
  /** Request-weighted mean of the turns' mean latencies (ms). */
  mean?: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Time the server spent in database calls, per request (ms), and database calls per request. */
  dbMsPerRequest: number;
  dbCallsPerRequest: number;
  /**
   * CPU per request (µs, user + system): the serving process's, and PostgreSQL's (the run's
   * databases' backends and the server-wide processes). Missing where not measured: PostgreSQL's
   * on PGlite (it runs in the server's process, so its CPU is the server's), both off Linux.
   */
  serverCpuUsPerRequest?: number;
  postgresCpuUsPerRequest?: number;
  /** The load generator's CPU per request (µs): autocannon's in the bench's process, or the chained client's. */
  loadCpuUsPerRequest?: number;
  /** With --stages: the server's time by stage (lib/stage-timing.ts), summed over the turns. */
  stages?: StageSums;
}

/**
 * Each token supply's next unused token, shared by every scenario that draws on it: (e) and its
 * copy through the pooler take turns on one supply, and never present a token twice.
 */
const cursors = new WeakMap<string[], number>();
function nextToken(tokens: string[]): string {
  const at = cursors.get(tokens) ?? 0;
  cursors.set(tokens, at + 1);
  return tokens[at] ?? "exhausted";
}
/** How many tokens of the supply are left (below zero: requests made past its end). */
const remainingOf = (tokens: string[]) => tokens.length - (cursors.get(tokens) ?? 0);

/**
 * An installation token (grant_type=client_credentials, private_key_jwt) for the seed's key app's
 * agency install, at the token endpoint `path` of a server that expects `audience` in the
 * assertion: one request for (h) and for (Rh) (scripts/bench/peers/oidc-provider.ts, which ignores
 * `companyId`), each with a fresh assertion of a supply of its own, signed alike.
 */
function installationTokens(seed: LoadSeed, path: string, audience: string): Omit<Scenario, "id" | "name"> {
  const { clientId, key } = seed.installation;
  const supply = new AssertionSupply(key, clientId, audience);
  return {
    expect: 200,
    fill: (seconds) => supply.fill(seconds),
    madeDuringLoad: () => supply.signedDuringLoad,
    requests: [
      {
        method: "POST",
        path,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        // Assertions are single-use (jti): each request presents one never presented before.
        setupRequest: (request) => ({
          ...request,
          body: new URLSearchParams({
            grant_type: "client_credentials",
            client_id: clientId,
            client_assertion_type: JWT_BEARER,
            client_assertion: supply.take(),
            companyId: seed.companyId,
          }).toString(),
        }),
      },
    ],
  };
}

/** (a)–(h), in the order they run, and (s) when a signed-in session cookie is given. */
export function scenarios(seed: LoadSeed, screenCookie?: string): Scenario[] {
  const location = `/locations/${seed.locationId}`;
  let contact = 0;
  let code = 0;
  const run = Date.now().toString(36);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, version: VERSION });
  const form = { "content-type": "application/x-www-form-urlencoded" };
  return [
    { id: "a", name: "GET /api/health (ceiling)", expect: 200, requests: [{ method: "GET", path: "/api/health" }] },
    {
      id: "b",
      name: "GET /locations/{id}, private-integration token",
      expect: 200,
      requests: [{ method: "GET", path: location, headers: bearer(seed.privateIntegrationToken) }],
    },
    {
      id: "c",
      name: "GET /locations/{id}, access token",
      expect: 200,
      requests: [{ method: "GET", path: location, headers: bearer(seed.locationAccessToken) }],
    },
    {
      id: "d",
      name: "POST /contacts/, access token",
      expect: 201,
      requests: [
        {
          method: "POST",
          path: "/contacts/",
          headers: { ...bearer(seed.locationAccessToken), "content-type": "application/json" },
          // A new e-mail each time, so every answer is a 201 and not a 409.
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              firstName: "Ada",
              lastName: "Lovelace",
              email: `bench-${run}-${contact++}@example.test`,
              phone: "+14155550123",
              locationId: seed.locationId,
            }),
          }),
        },
      ],
    },
    {
      id: "e",
      name: "POST /oauth/token, refresh_token grant",
      expect: 200,
      remaining: () => remainingOf(seed.refresh.tokens),
      requests: [
        {
          method: "POST",
          path: "/oauth/token",
          headers: form,
          // Refresh tokens are single-use: each request presents one never presented before.
          setupRequest: (request) => ({
            ...request,
            body: new URLSearchParams({
              grant_type: "refresh_token",
              client_id: seed.refresh.clientId,
              client_secret: seed.refresh.clientSecret,
              refresh_token: nextToken(seed.refresh.tokens),
            }).toString(),
          }),
        },
      ],
    },
    chainScenario(
      "e′",
      `POST /oauth/token, refresh_token grant, ${CONNECTIONS} chains (${chainClient()})`,
      seed.refresh,
      {
        chains: CONNECTIONS,
        path: "/oauth/token",
      },
    ),
    {
      id: "g",
      name: "POST /oauth/token, authorization_code grant",
      expect: 200,
      remaining: () => seed.codes.codes.length - code,
      requests: [
        {
          method: "POST",
          path: "/oauth/token",
          headers: form,
          // Codes are single-use: each request presents one never presented before.
          setupRequest: (request) => ({
            ...request,
            body: new URLSearchParams({
              grant_type: "authorization_code",
              client_id: seed.codes.clientId,
              client_secret: seed.codes.clientSecret,
              code: seed.codes.codes[code++] ?? "exhausted",
              user_type: "Location",
            }).toString(),
          }),
        },
      ],
    },
    {
      id: "f",
      name: "POST /oauth/locationToken",
      expect: 200,
      requests: [
        {
          method: "POST",
          path: "/oauth/locationToken",
          headers: { ...bearer(seed.companyAccessToken), ...form },
          body: new URLSearchParams({ companyId: seed.companyId, locationId: seed.locationId }).toString(),
        },
      ],
    },
    {
      id: "h",
      name: "POST /oauth/token, client_credentials + private_key_jwt (installation token)",
      // APP_URL: the server's, as scripts/bench.ts starts it.
      ...installationTokens(seed, "/oauth/token", `${process.env.APP_URL}/oauth/token`),
    },
    ...(screenCookie
      ? [
          {
            id: "s",
            name: `GET /settings/private-integrations, ${seed.screen.integrations} integrations (screen, ${SCREEN_CONNECTIONS} connections)`,
            expect: 200,
            connections: SCREEN_CONNECTIONS,
            requests: [
              { method: "GET" as const, path: "/settings/private-integrations", headers: { cookie: screenCookie } },
            ],
          },
        ]
      : []),
  ];
}

/** The screen scenario's connections: a few people at once, so its latency is the server's time for one page. */
const SCREEN_CONNECTIONS = 4;

/** One request by hand before the load, so a misconfigured scenario fails loudly instead of benchmarking errors. */
async function check(baseUrl: string, scenario: Scenario): Promise<void> {
  if (scenario.drive) {
    await scenario.drive(baseUrl, 1, true);
    return;
  }
  const template = scenario.requests[0] as AutocannonRequest;
  const request = template.setupRequest ? (template.setupRequest({ ...template }) ?? template) : template;
  const res = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  if (res.status !== scenario.expect) {
    throw new Error(
      `(${scenario.id}) ${scenario.name}: expected ${scenario.expect}, got ${res.status}: ${await res.text()}`,
    );
  }
}

/** `duration` seconds of the scenario's load: its own, or autocannon's. */
async function load(baseUrl: string, scenario: Scenario, duration: number, warmup = false): Promise<LoadResult> {
  if (scenario.drive) return scenario.drive(baseUrl, duration, warmup);
  const connections = scenario.connections ?? CONNECTIONS;
  const cpu = process.cpuUsage();
  const result: Result = await autocannon({ url: baseUrl, connections, duration, requests: scenario.requests });
  const used = process.cpuUsage(cpu);
  return {
    loadCpuUs: used.user + used.system,
    total: result.requests.total,
    seconds: result.duration,
    mean: result.latency.mean,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** One measured stretch of one scenario. */
export interface Measurement extends Omit<LoadResult, "loadCpuUs"> {
  dbMs: number;
  dbCalls: number;
  /** CPU over the stretch (µs): see ScenarioResult. */
  serverCpuUs?: number;
  postgresCpuUs?: number;
  loadCpuUs?: number;
  stages?: StageSums;
}

/** Checks the scenario answers as expected, then loads it for `warmup` seconds, unmeasured. */
export async function prepareScenario(ourBaseUrl: string, scenario: Scenario, warmup: number): Promise<void> {
  const baseUrl = scenario.baseUrl ?? ourBaseUrl;
  scenario.fill?.(warmup + 1);
  await check(baseUrl, scenario);
  if (warmup > 0) await load(baseUrl, scenario, warmup, true);
}

/** Where a peer's scenario is sent, and whose CPU it costs. */
const at = (peer: Peer) => ({ baseUrl: peer.baseUrl, pid: peer.pid });

/**
 * The peers' scenarios: the reference OAuth server's rotating refresh and installation token (the
 * same client, key and request as (h)), and a bare Next.js route (when `bare` was started).
 */
export function peerScenarios(oidc: OidcProviderPeer, bare: Peer | undefined, seed: LoadSeed): Scenario[] {
  return [
    {
      id: "R",
      name: "Peer: node-oidc-provider 9, rotating refresh_token grant",
      expect: 200,
      ...at(oidc),
      remaining: () => remainingOf(oidc.refreshTokens),
      requests: [
        {
          method: "POST",
          path: "/token",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          setupRequest: (request) => ({
            ...request,
            body: new URLSearchParams({
              grant_type: "refresh_token",
              client_id: oidc.clientId,
              client_secret: oidc.clientSecret,
              refresh_token: nextToken(oidc.refreshTokens),
            }).toString(),
          }),
        },
      ],
    },
    chainScenario(
      "R′",
      `Peer: node-oidc-provider 9, rotating refresh_token grant, ${CONNECTIONS} chains (${chainClient()})`,
      { clientId: oidc.clientId, clientSecret: oidc.clientSecret, tokens: oidc.refreshTokens },
      { chains: CONNECTIONS, path: "/token", target: at(oidc) },
    ),
    {
      id: "Rh",
      name: "Peer: node-oidc-provider 9, client_credentials + private_key_jwt",
      ...at(oidc),
      ...installationTokens(seed, "/token", `${oidc.baseUrl}/token`),
    },
    ...(bare
      ? [
          {
            id: "N",
            name: "Peer: bare Next.js 16 route handler, its own app",
            expect: 200,
            ...at(bare),
            requests: [{ method: "GET" as const, path: "/api/ok" }],
          },
        ]
      : []),
  ];
}

/**
 * Peer (L)'s scenarios: the same requests as (b), (c) and (e), with the same tokens (the refresh
 * tokens a supply of their own, seeded alike), against the hand-written limit server.
 */
export function limitScenarios(seed: LoadSeed, limit: Peer): Scenario[] {
  const [b, c, e] = ["b", "c", "e"].map((id) => scenarios(seed).find((s) => s.id === id) as Scenario);
  const supply = seed.limitRefresh;
  if (!supply) throw new Error("Peer (L)'s scenarios need its refresh tokens: seedForLoad(…, { limitPeer: <count> }).");
  const tokens = supply.tokens;
  return [
    { ...(b as Scenario), id: "Lb", name: "Peer (L): the limit, private-integration read", ...at(limit) },
    { ...(c as Scenario), id: "Lc", name: "Peer (L): the limit, access-token read", ...at(limit) },
    {
      ...(e as Scenario),
      id: "Le",
      name: "Peer (L): the limit, rotating refresh_token grant",
      ...at(limit),
      remaining: () => remainingOf(tokens),
      requests: [
        {
          method: "POST",
          path: "/oauth/token",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          setupRequest: (request) => ({
            ...request,
            body: new URLSearchParams({
              grant_type: "refresh_token",
              client_id: supply.clientId,
              client_secret: supply.clientSecret,
              refresh_token: nextToken(tokens),
            }).toString(),
          }),
        },
      ],
    },
    chainScenario(
      "Le′",
      `Peer (L): the limit, rotating refresh_token grant, ${CONNECTIONS} chains (${chainClient()})`,
      supply,
      {
        chains: CONNECTIONS,
        path: "/oauth/token",
        target: at(limit),
      },
    ),
  ];
}

/** Our second server, whose database is reached through a transaction-mode pooler, and that pooler's process. */
export interface ThroughPooler {
  server: Peer;
  poolerPid?: number;
  /** Peer (L) on the same pooler (its statements unnamed), when its refreshes are measured there too. */
  limit?: Peer;
}

/**
 * The private-integration read (b) and the refreshes (e) and (e′) again, on our server through a
 * transaction-mode pooler (bP, eP, e′P), and peer (L)'s refreshes through the same pooler (LeP,
 * Le′P): the same requests and token supplies as the direct ones.
 */
export function pooledScenarios(seed: LoadSeed, pooled: ThroughPooler): Scenario[] {
  const ours = scenarios(seed);
  const through = { ...at(pooled.server), ourServer: true, poolerPid: pooled.poolerPid };
  const again = (from: Scenario[], id: string, target: Partial<Scenario>): Scenario => {
    const one = from.find((s) => s.id === id) as Scenario;
    return { ...one, ...target, id: `${id}P`, name: `${one.name}, through PgBouncer` };
  };
  const ourRows = ["b", "e", "e′"].map((id) => again(ours, id, through));
  if (!pooled.limit) return ourRows;
  const limits = limitScenarios(seed, pooled.limit);
  const onPooler = { ...at(pooled.limit), poolerPid: pooled.poolerPid };
  return [...ourRows, ...["Le", "Le′"].map((id) => again(limits, id, onPooler))];
}

/** Our server, as scripts/support/production-server.ts started it. */
export interface OurServer {
  baseUrl: string;
  process: { pid?: number };
}

/**
 * One turn of `scenario`, against our `server` unless the scenario is a peer's. `postgres`: the
 * run's PostgreSQL databases, whose CPU is measured too (none on PGlite).
 */
export async function measure(
  server: OurServer,
  scenario: Scenario,
  seconds: number,
  postgres?: string[],
): Promise<Measurement> {
  // What the turn's requests need fresh (client assertions), made before its measured time.
  scenario.fill?.(seconds);
  // Let the previous load's last requests finish, so their database time is not counted here.
  await new Promise((r) => setTimeout(r, 1_000));
  const baseUrl = scenario.baseUrl ?? server.baseUrl;
  const ours = !scenario.baseUrl || scenario.ourServer === true;
  const root = scenario.baseUrl ? scenario.pid : server.process.pid;
  const serving = root === undefined ? undefined : servingProcesses(root, Number(new URL(baseUrl).port));
  if (!serving && process.platform === "linux") {
    console.warn(`[bench] (${scenario.id}): no process of the server's tree listens on ${baseUrl}: no CPU figure.`);
  }
  const dbTime = async () => (ours ? serverDbTime(baseUrl) : { totalMs: 0, calls: 0, stages: undefined });
  const before = await dbTime();
  // The pooler's process, when there is one, works for PostgreSQL's side of the request.
  const databaseSide = () => {
    const processes = postgres && postgresProcesses(postgres);
    return processes && scenario.poolerPid !== undefined ? [...processes, String(scenario.poolerPid)] : processes;
  };
  const cpuBefore = {
    server: snapshot(serving ?? []),
    postgres: snapshot(databaseSide() ?? []),
  };
  const result = await load(baseUrl, scenario, seconds);
  const serverCpuUs = serving ? usedUs(cpuBefore.server, snapshot(serving)) : undefined;
  const postgresNow = databaseSide();
  const postgresCpuUs = postgresNow ? usedUs(cpuBefore.postgres, snapshot(postgresNow)) : undefined;
  const after = await dbTime();
  if (scenario.remaining && scenario.remaining() < 0) {
    console.warn(`[bench] (${scenario.id}) ran out of seeded tokens: the non-2xx count includes the surplus requests.`);
  }
  const made = scenario.madeDuringLoad?.() ?? 0;
  if (made > 0) {
    console.warn(`[bench] (${scenario.id}) outran its pre-signed assertions: ${made} were signed during the load.`);
  }
  return {
    ...result,
    dbMs: after.totalMs - before.totalMs,
    dbCalls: after.calls - before.calls,
    serverCpuUs,
    postgresCpuUs,
    stages: after.stages && Object.keys(after.stages).length ? stagesBetween(before.stages, after.stages) : undefined,
  };
}

/** CPU per request over the rounds; missing if any round's is. */
const perRequest = (used: (number | undefined)[], total: number) =>
  total && used.every((us) => us !== undefined) ? used.reduce((n: number, us) => n + us, 0) / total : undefined;

/**
 * A scenario's result over its rounds: requests/s over the whole measured time, p50 the
 * request-weighted mean of the rounds' p50s, p99 the worst round's (autocannon's histograms are
 * not merged), counts, database time and CPU summed.
 */
export function combine(scenario: Scenario, rounds: Measurement[]): ScenarioResult {
  const total = rounds.reduce((n, r) => n + r.total, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  const sum = (f: (r: Measurement) => number) => rounds.reduce((n, r) => n + f(r), 0);
  return {
    id: scenario.id,
    name: scenario.name,
    requestsPerSecond: seconds ? total / seconds : 0,
    mean: total ? sum((r) => r.mean * r.total) / total : 0,
    p50: total ? sum((r) => r.p50 * r.total) / total : 0,
    p99: Math.max(...rounds.map((r) => r.p99)),
    total,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    dbMsPerRequest: total ? sum((r) => r.dbMs) / total : 0,
    dbCallsPerRequest: total ? sum((r) => r.dbCalls) / total : 0,
    serverCpuUsPerRequest: perRequest(
      rounds.map((r) => r.serverCpuUs),
      total,
    ),
    postgresCpuUsPerRequest: perRequest(
      rounds.map((r) => r.postgresCpuUs),
      total,
    ),
    loadCpuUsPerRequest: perRequest(
      rounds.map((r) => r.loadCpuUs),
      total,
    ),
    stages: rounds.some((r) => r.stages) ? sumStages(rounds.map((r) => r.stages)) : undefined,
  };
}
