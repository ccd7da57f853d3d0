// Over 250 lines on purpose: one production server's life as a platform sees it (metrics scraped
// over HTTP, readiness, then SIGTERM with requests in flight and the usage counts they leave), in
// the order it happens.
import { existsSync, readFileSync, statSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { apiRoutes } from "@/app/route-table";
import { db, disconnectDb } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { type Scraped, scrape } from "@/lib/testing/prometheus";
import { logTail } from "../support/production-server";
import { check, results, say } from "./context";
import { type Instance, makeInstance, sleep } from "./instances";
import { getLocation, issueCode, makeWorld, openFreshDatabase, postForm } from "./world";

/**
 * SPEC.md › Running it as a platform runs it, against the production server (`npm start`):
 * - with METRICS_PORT, GET /metrics on that port (loopback) answers Prometheus's text format with
 *   the process's own metrics and the service's families, counted from real requests (a code and a
 *   refresh, a refused refresh, a private integration's calls and refusals), route patterns as
 *   labels and never an id or a token; the public port answers /metrics with the JSON 404;
 * - the database is opened before the server listens (scripts/serve.mjs prepares Next.js, which runs
 *   instrumentation.ts), so the first probe and the first request do not wait for it;
 * - GET /api/ready answers 200 on a migrated database;
 * - SIGTERM with requests in flight (bodies still arriving): they are answered, a new connection
 *   is refused, the usage counts of every request are in the database, and the process is gone
 *   within 10 seconds.
 */

/** The families SPEC.md names, and the process's own. */
const FAMILIES = [
  "process_cpu_user_seconds_total",
  "process_resident_memory_bytes",
  "nodejs_eventloop_lag_seconds",
  "nodejs_heap_size_used_bytes",
  "http_requests_total",
  "http_request_duration_seconds",
  "oauth_tokens_issued_total",
  "oauth_token_errors_total",
  "api_refusals_total",
  "private_integration_requests_total",
  "webhook_deliveries_total",
  "webhook_events_pending",
  "webhook_oldest_pending_seconds",
  "database_pool_connections",
];

/** How many private-integration calls are made before the scrape (each answered 200). */
const CALLS = 7;

interface Seeded {
  world: Awaited<ReturnType<typeof makeWorld>>;
  code: string;
  integration: { id: string; token: string };
}

async function seed(url: string): Promise<Seeded> {
  await openFreshDatabase(url);
  const world = await makeWorld(2);
  const code = await issueCode(world);
  const issued = await createPrivateIntegration(
    world.owner,
    { level: "location", locationId: world.locationIds[0] as string },
    { name: "Scraped", scopes: ["locations.readonly", "contacts.write"] },
  );
  // PGlite belongs to one process: the server takes it from here.
  await disconnectDb();
  return { world, code, integration: { id: issued.integration.id, token: issued.token } };
}

/**
 * A POST whose body arrives in two halves: the second only when `finish` is called. `keepAlive`:
 * on a connection the client means to keep (the server closes it once it has answered).
 */
function trickled(port: number, path: string, headers: Record<string, string>, body: string, keepAlive: boolean) {
  const request = httpRequest({
    host: "127.0.0.1",
    port,
    path,
    method: "POST",
    agent: keepAlive ? new Agent({ keepAlive: true }) : false,
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return { answer, finish: () => request.end(body.slice(half)) };
}

/** Whether a new TCP connection to `port` is refused. */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** Every label value of the service's families, and the route patterns the route table allows. */
function labelsAreFixed(scraped: Scraped, secrets: string[]): { ok: boolean; strays: string[] } {
  const patterns = new Set([...apiRoutes.map((r) => r.pattern), "other"]);
  const strays: string[] = [];
  for (const [name, family] of scraped.families) {
    if (!/^(http_|oauth_|api_|private_|webhook_|database_)/.test(name)) continue;
    for (const sample of family.samples) {
      const route = sample.labels.route;
      if (route !== undefined && !patterns.has(route)) strays.push(`${name}{route="${route}"}`);
      for (const value of Object.values(sample.labels)) {
        if (secrets.some((secret) => value.includes(secret))) strays.push(`${name}: ${value}`);
      }
    }
  }
  return { ok: strays.length === 0, strays };
}

/** GET /api/ready until it answers 200 or `withinMs` has passed: the last answer and its reason. */
async function readyWithin(
  base: string,
  withinMs: number,
): Promise<{ status: number; probes: number; reason?: string }> {
  const deadline = Date.now() + withinMs;
  for (let probes = 1; ; probes++) {
    const answer = await fetch(`${base}/api/ready`);
    const body = (await answer.json().catch(() => ({}))) as { error_description?: string };
    if (answer.status === 200 || Date.now() >= deadline) {
      return { status: answer.status, probes, reason: body.error_description };
    }
    await sleep(500);
  }
}

export async function platformChecks(label: string, databaseUrl: string, port: number, metricsPort: number) {
  say(`${label}: metrics, readiness and SIGTERM on one production server (METRICS_PORT=${metricsPort})`);
  const seeded = await seed(databaseUrl);
  const { world, integration } = seeded;
  const instance: Instance = makeInstance(`${label}-platform`, port, databaseUrl, {
    METRICS_PORT: String(metricsPort),
    // Nothing here delivers webhooks or prunes; the usage counts are flushed every second anyway.
    PRUNE_INTERVAL_SECONDS: "0",
  });
  let stopped = false;
  try {
    // The log is appended to: this start's lines are those past its present end.
    const logFrom = existsSync(instance.logFile) ? statSync(instance.logFile).size : 0;
    await instance.start();
    const base = instance.url;
    const [mine, other] = world.locationIds as [string, string];

    // Readiness, and /metrics never on the public port. Probed as a load balancer does, until it
    // answers 200. The database is open before the server listens (checked next), so the line
    // reads 1 probe; more would say the database was slow to answer, not that it was still opening.
    const ready = await readyWithin(base, 30_000);
    check(
      ready.status === 200,
      `${label}: GET /api/ready answers 200 on a migrated database (${ready.status} after ${ready.probes} probe(s)${ready.reason ? `: ${ready.reason}` : ""})`,
    );
    const startLog = readFileSync(instance.logFile).subarray(logFrom).toString("utf8");
    const opened = startLog.indexOf("database open and migrated");
    const listening = startLog.indexOf("Next.js ready on port");
    check(
      opened !== -1 && listening !== -1 && opened < listening,
      `${label}: the database was opened before the server listened (log offsets: opened ${opened}, listening ${listening})`,
    );
    const publicMetrics = await fetch(`${base}/metrics`);
    const publicBody = (await publicMetrics.json().catch(() => ({}))) as { error?: string };
    check(
      publicMetrics.status === 404 && publicBody.error === "not_found",
      `${label}: the public port answers GET /metrics with the JSON 404 (${publicMetrics.status} ${publicBody.error})`,
    );

    // Real requests: a code, its refresh, a refused refresh, a private integration's calls.
    const client = { client_id: world.client.clientId, client_secret: world.client.clientSecret };
    const exchanged = await postForm(base, "/oauth/token", {
      grant_type: "authorization_code",
      code: seeded.code,
      user_type: "Company",
      ...client,
    });
    const refreshed = await postForm(base, "/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: exchanged.body.refresh_token ?? "",
      ...client,
    });
    const refused = await postForm(base, "/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: "nope",
      ...client,
    });
    const statuses: number[] = [];
    for (let i = 0; i < CALLS; i++) statuses.push(await getLocation(base, mine, integration.token));
    const forbidden = await getLocation(base, other, integration.token);
    const unknown = await getLocation(base, mine, "pit-00000000-0000-0000-0000-000000000000");
    check(
      exchanged.status === 200 &&
        refreshed.status === 200 &&
        refused.status === 400 &&
        statuses.every((s) => s === 200) &&
        forbidden === 403 &&
        unknown === 401,
      `${label}: the requests answered as expected (code ${exchanged.status}, refresh ${refreshed.status}, bad refresh ${refused.status}, ${CALLS} calls ${[...new Set(statuses)].join("/")}, other sub-account ${forbidden}, unknown token ${unknown})`,
    );

    const scraped = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
    const s = scraped.scraped;
    const missing = FAMILIES.filter((family) => !s.families.has(family));
    check(
      scraped.status === 200 &&
        scraped.contentType === "text/plain; version=0.0.4; charset=utf-8" &&
        missing.length === 0,
      `${label}: GET /metrics on METRICS_PORT answers the text format 0.0.4 with every family (${scraped.status}, ${scraped.contentType}${missing.length ? `; missing ${missing.join(", ")}` : ""})`,
    );
    const route = "/locations/{locationId}";
    const values = {
      ok: s.value("http_requests_total", { route, method: "GET", status: "200" }),
      forbidden: s.value("http_requests_total", { route, method: "GET", status: "403" }),
      tokenCalls: s.value("http_requests_total", { route: "/oauth/token", method: "POST", status: "200" }),
      durations: s.histogram("http_request_duration_seconds", { route, method: "GET" })?.count,
      code: s.value("oauth_tokens_issued_total", { grant_type: "authorization_code", user_type: "Company" }),
      refresh: s.value("oauth_tokens_issued_total", { grant_type: "refresh_token", user_type: "Company" }),
      invalidGrant: s.value("oauth_token_errors_total", { grant_type: "refresh_token", error: "invalid_grant" }),
      integrationOk: s.value("private_integration_requests_total", { outcome: "ok" }),
      integrationRefused: s.value("private_integration_requests_total", { outcome: "refused" }),
      forbiddenRefusals: s.value("api_refusals_total", { error: "forbidden" }),
      invalidToken: s.value("api_refusals_total", { error: "invalid_token" }),
      pending: s.value("webhook_events_pending"),
      oldestPending: s.value("webhook_oldest_pending_seconds"),
      connections: s.value("database_pool_connections", { state: "total" }),
    };
    results[`${label}.metrics`] = values;
    check(
      values.ok === CALLS &&
        values.forbidden === 1 &&
        values.tokenCalls === 2 &&
        values.durations === CALLS + 2 &&
        values.code === 1 &&
        values.refresh === 1 &&
        values.invalidGrant === 1 &&
        values.integrationOk === CALLS &&
        values.integrationRefused === 1 &&
        values.forbiddenRefusals === 1 &&
        values.invalidToken === 1 &&
        values.pending === 0 &&
        values.oldestPending === 0 &&
        (values.connections ?? 0) >= 1,
      `${label}: the scraped values are the requests made (${JSON.stringify(values)})`,
    );
    const fixed = labelsAreFixed(s, [integration.token, integration.id, mine, other, world.companyId, "@"]);
    check(
      fixed.ok,
      `${label}: every route label is a route pattern, no label holds a token, an id or an e-mail${fixed.ok ? "" : `: ${fixed.strays.slice(0, 5).join("; ")}`}`,
    );

    // SIGTERM with two requests in flight whose bodies are still arriving, and calls just before it.
    for (let i = 0; i < 3; i++) await getLocation(base, mine, integration.token);
    const contact = (n: number) =>
      JSON.stringify({
        firstName: "Ada",
        lastName: `Lovelace ${n}`,
        email: `ada-${n}-${Date.now()}@example.com`,
        phone: "+14155550123",
        locationId: mine,
      });
    const headers = {
      authorization: `Bearer ${integration.token}`,
      version: "2021-07-28",
      "content-type": "application/json",
    };
    const inFlight = [1, 2].map((n) => trickled(instance.port, "/contacts/", headers, contact(n), n === 2));
    await sleep(300); // their headers and half their bodies are in
    const signalledAt = Date.now();
    const stopping = instance.stop().then(() => Date.now() - signalledAt);
    await sleep(500);
    const refusesNew = await refusesConnections(instance.port);
    for (const one of inFlight) one.finish();
    const answers = await Promise.all(inFlight.map((one) => one.answer.catch(() => ({ status: 0, body: "" }))));
    const exitMs = await stopping;
    stopped = true;
    results[`${label}.sigterm`] = { exitMs, inFlightStatuses: answers.map((a) => a.status), refusesNew };
    check(
      answers.every((a) => a.status === 201),
      `${label}: SIGTERM: both requests in flight were answered (${answers.map((a) => a.status).join(", ")})`,
    );
    check(refusesNew, `${label}: SIGTERM: a new connection is refused at once`);
    check(exitMs < 10_000, `${label}: SIGTERM: the server exited in ${exitMs} ms (within 10 s)`);

    // The usage counts of every request, the last second's included, are in the database.
    await disconnectDb();
    process.env.DATABASE_URL = databaseUrl;
    resetEnvCache();
    const hours = await db().apiUsageHour.findMany({
      where: { subjectType: "integration", subjectId: integration.id },
    });
    const counted = hours.reduce((sum, h) => ({ ok: sum.ok + h.ok, refused: sum.refused + h.refused }), {
      ok: 0,
      refused: 0,
    });
    await disconnectDb();
    const expected = { ok: CALLS + 3 + 2, refused: 1 };
    results[`${label}.usageAfterSigterm`] = { counted, expected };
    check(
      counted.ok === expected.ok && counted.refused === expected.refused,
      `${label}: SIGTERM: the usage counts are in the database: ${counted.ok} ok, ${counted.refused} refused (expected ${expected.ok} and ${expected.refused})`,
    );
  } catch (error) {
    check(
      false,
      `${label}: platform checks: ${error instanceof Error ? error.message : String(error)}\n${logTail(instance.logFile)}`,
    );
  } finally {
    if (!stopped) await instance.stop();
  }
}
