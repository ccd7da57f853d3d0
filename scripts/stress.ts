// Over 250 lines on purpose: the stress run's scenarios, in the order they run, share the servers,
// databases and worlds it starts; each is a function named for what it proves.
// npm run test:stress — evidence, in numbers, that nothing is lost or leaked under load, races and crashes:
//   1. fuzzing every route (lib/api/fuzz.test.ts with FUZZ_RUNS, default 400 per route);
//   2. two production servers on one PostgreSQL: one code redeemed against both at once (exactly one
//      200); one refresh token presented to both at once (inside REFRESH_TOKEN_REUSE_SECONDS every
//      answer is 200 and the one family survives; restarted with the window at 0, exactly one 200 and
//      the reuse revokes the family); deletion and revocation through one instance refused by the
//      other within a second; one instance SIGKILLed mid-delivery and restarted (no webhook lost);
//   3. one production server on the embedded PGlite: the same races, and SIGKILL mid-delivery + restart.
//   In 2, access-token signing keys are also rotated, through one instance and by the clock: once,
//   and every token from before and after is verified by both instances; the webhook key is rotated
//   through one instance (the other publishes both keys at once) and through both at once.
// `--short` (run by npm test) does 2 or 3 with fewer requests: 2 when TEST_DATABASE_URL is set
// (PGlite allows one process per data directory), else 3. Results: test-results/stress/results.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { decodeProtectedHeader } from "jose";
import { createCompany } from "@/lib/accounts/companies";
import { setLabsFeature } from "@/lib/accounts/labs";
import type { Actor } from "@/lib/accounts/permissions";
import { createUser } from "@/lib/accounts/users";
import { createApp } from "@/lib/apps/registry";
import { operatorKey } from "@/lib/cli/operator";
import { databaseHandle, db, disconnectDb } from "@/lib/db/client";
import { deployMigrations } from "@/lib/db/migrations";
import { resetEnvCache } from "@/lib/env";
import { createPrivateIntegration, deletePrivateIntegration } from "@/lib/integrations/lifecycle";
import { approveInstall } from "@/lib/oauth/authorize/approve";
import { createLocation } from "@/lib/provisioning/create-location";
import {
  type Instance,
  makeInstance,
  type SlowReceiver,
  sleep,
  startSlowReceiver,
  stressDir,
  stressSecret,
} from "./stress/instances";
import { freshPostgresDatabase } from "./support/database";
import { logTail } from "./support/production-server";

const short = process.argv.includes("--short");
/** Three ports from here (two PostgreSQL instances, one PGlite); beside E2E_PORT so parallel runs do not collide. */
const basePort = Number(process.env.STRESS_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 80);
const postgresServer =
  process.env.TEST_DATABASE_URL ?? (short ? undefined : "postgresql://postgres@127.0.0.1:5432/postgres");
const sizes = short
  ? { race: 10, propagation: 3, events: 24, fuzzRuns: 0 }
  : { race: 40, propagation: 20, events: 150, fuzzRuns: Number(process.env.FUZZ_RUNS ?? 400) };
/** Short enough that a crashed instance's claims come back quickly; production keeps 60 s. */
const leaseSeconds = 15;
const redirectUri = "https://app.example.test/oauth/callback";

process.env.SERVER_SECRET = stressSecret;
process.env.WEBHOOK_ALLOW_PRIVATE = "1";
process.env.LOG_LEVEL = "warn";

const results: Record<string, unknown> = { mode: short ? "short" : "full", startedAt: new Date().toISOString() };
const failures: string[] = [];
let passed = 0;
const say = (message: string) => console.log(`[stress] ${message}`);

function check(ok: boolean, what: string) {
  say(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (ok) passed++;
  else failures.push(what);
}

async function openFreshDatabase(url: string) {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetEnvCache();
  await deployMigrations(databaseHandle().adapterFactory);
}

interface World {
  owner: Actor;
  companyId: string;
  locationIds: string[];
  client: { clientId: string; clientSecret: string };
}

const suffix = () => Math.random().toString(36).slice(2, 8);

/** An agency with sub-accounts, its owner, and an app without a webhook (for the token races). */
async function makeWorld(locations: number): Promise<World> {
  const company = await createCompany({ name: `Stress agency ${suffix()}` });
  const locationIds: string[] = [];
  for (let i = 0; i < locations; i++)
    locationIds.push((await createLocation({ companyId: company.id, name: `Sub-account ${i + 1}` })).id);
  const owner = await createUser({
    email: `owner-${suffix()}@stress.test`,
    password: "stress-owner-password",
    name: "Stress Owner",
    role: "agency_owner",
    companyId: company.id,
  });
  await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: true });
  const app = await createApp({
    companyId: company.id,
    name: `Stress app ${suffix()}`,
    redirectUris: [redirectUri],
    scopes: ["oauth.readonly", "oauth.write", "locations.readonly", "contacts.write"],
    installSetting: "everyone",
  });
  return {
    owner,
    companyId: company.id,
    locationIds,
    client: { clientId: app.app.clientId, clientSecret: app.clientSecret },
  };
}

async function issueCode(world: World, clientId = world.client.clientId): Promise<string> {
  const approved = await approveInstall({
    actor: world.owner,
    params: { response_type: "code", client_id: clientId, redirect_uri: redirectUri, state: "s" },
    target: { level: "agency", locationIds: world.locationIds.slice(0, 2) },
  });
  return approved.code;
}

/** Installs an app whose webhook goes to `receiver` on `count` sub-accounts: `count` INSTALL events. */
async function enqueueInstallEvents(world: World, receiver: SlowReceiver, count: number): Promise<Set<string>> {
  const locations: string[] = [];
  for (let i = 0; i < count; i++)
    locations.push((await createLocation({ companyId: world.companyId, name: `Hooked ${i + 1}` })).id);
  const app = await createApp({
    companyId: world.companyId,
    name: `Hooked app ${suffix()}`,
    redirectUris: [redirectUri],
    scopes: ["locations.readonly"],
    installSetting: "everyone",
    webhookUrl: receiver.url,
  });
  await approveInstall({
    actor: world.owner,
    params: { response_type: "code", client_id: app.app.clientId, redirect_uri: redirectUri, state: "s" },
    target: { level: "agency", locationIds: locations },
  });
  const events = await db().webhookEvent.findMany({ where: { appId: app.app.id }, select: { id: true } });
  return new Set(events.map((e) => e.id));
}

async function postForm(base: string, path: string, form: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, string>;
  return { status: res.status, body };
}

async function getLocation(base: string, locationId: string, token: string): Promise<number> {
  const res = await fetch(`${base}/locations/${locationId}`, {
    headers: { authorization: `Bearer ${token}`, version: "2021-07-28" },
  });
  await res.arrayBuffer();
  return res.status;
}

/** `count` requests at once, spread over the instances; the statuses and error codes seen. */
async function race(instances: Instance[], count: number, form: Record<string, string>) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => postForm(instances[i % instances.length]!.url, "/oauth/token", form)),
  );
  const tally: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 200 ? "200" : `${a.status} ${a.body.error}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return { answers, tally, winners: answers.filter((a) => a.status === 200) };
}

async function tokenRaces(label: string, instances: Instance[], world: World) {
  const { clientId, clientSecret } = world.client;
  // One authorization code, redeemed `sizes.race` times at once.
  const code = await issueCode(world);
  const codeRace = await race(instances, sizes.race, {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code,
    user_type: "Company",
  });
  results[`${label}.codeRace`] = codeRace.tally;
  check(
    codeRace.winners.length === 1 && codeRace.tally["400 invalid_grant"] === sizes.race - 1,
    `${label}: one code redeemed ${sizes.race}× at once on ${instances.length} instance(s) → ${JSON.stringify(codeRace.tally)} (exactly one 200, the rest invalid_grant)`,
  );
  const reused = codeRace.winners[0]?.body.access_token;
  if (reused) {
    const status = await getLocation(instances[0]!.url, world.locationIds[0]!, reused);
    check(status === 401, `${label}: the token issued from the replayed code is revoked (RFC 6749 §4.1.2): ${status}`);
  }

  // One refresh token, presented `sizes.race` times at once.
  const exchanged = await postForm(instances[0]!.url, "/oauth/token", {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code: await issueCode(world),
    user_type: "Company",
  });
  const works = await getLocation(
    instances[instances.length - 1]!.url,
    world.locationIds[0]!,
    exchanged.body.access_token ?? "",
  );
  check(
    exchanged.status === 200 && works === 200,
    `${label}: a fresh code exchanges (${exchanged.status}) and its token works on every instance (${works})`,
  );
  await refreshRaceInsideWindow(label, instances, world, exchanged.body.refresh_token ?? "");
}

/**
 * One refresh token presented `sizes.race` times at once over the instances, with the default
 * REFRESH_TOKEN_REUSE_SECONDS: every answer is 200 with a pair of its own, nothing is revoked, and
 * (PostgreSQL, which this process can read too) every pair belongs to the one family.
 */
async function refreshRaceInsideWindow(label: string, instances: Instance[], world: World, refreshToken: string) {
  const { clientId, clientSecret } = world.client;
  const refreshRace = await race(instances, sizes.race, {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: refreshToken,
  });
  results[`${label}.refreshRace`] = refreshRace.tally;
  const pairs = refreshRace.winners.map((w) => w.body);
  check(
    refreshRace.winners.length === sizes.race && new Set(pairs.map((p) => p.refresh_token)).size === sizes.race,
    `${label}: one refresh token presented ${sizes.race}× at once on ${instances.length} instance(s), inside the reuse window → ${JSON.stringify(refreshRace.tally)} (every answer 200, each a pair of its own)`,
  );
  const working = await Promise.all(
    pairs.map((p, i) => getLocation(instances[i % instances.length]!.url, world.locationIds[0]!, p.access_token ?? "")),
  );
  check(
    working.every((status) => status === 200),
    `${label}: every access token of the race works, nothing was revoked (${working.filter((s) => s === 200).length}/${working.length})`,
  );
  if (label === "postgres") {
    const rows = await db().refreshToken.findMany({
      where: { id: { in: pairs.map((p) => p.refreshTokenId ?? "") } },
      select: { grantId: true, grant: { select: { revokedAt: true } } },
    });
    const families = new Set(rows.map((r) => r.grantId));
    check(
      rows.length === pairs.length && families.size === 1 && rows.every((r) => r.grant.revokedAt === null),
      `${label}: exactly one family survives the race: ${rows.length} refresh tokens in ${families.size} grant(s), revoked: ${rows.some((r) => r.grant.revokedAt !== null)}`,
    );
  }
  // Each new refresh token works (once): the app's processes each carry on with their own.
  const onward = await Promise.all(
    pairs.map((p, i) =>
      postForm(instances[(i + 1) % instances.length]!.url, "/oauth/token", {
        grant_type: "refresh_token",
        client_id: clientId,
        client_secret: clientSecret,
        refresh_token: p.refresh_token ?? "",
      }),
    ),
  );
  check(
    onward.every((a) => a.status === 200),
    `${label}: every refresh token the race issued refreshes again (${onward.filter((a) => a.status === 200).length}/${onward.length} × 200)`,
  );
}

/**
 * With REFRESH_TOKEN_REUSE_SECONDS=0 (strict single use): one refresh token presented
 * `sizes.race` times at once gives exactly one 200; the others are reuse, which revokes the
 * family, the winner's tokens included.
 */
async function strictRefreshRace(label: string, instances: Instance[], world: World, refreshToken: string) {
  const { clientId, clientSecret } = world.client;
  const strict = await race(instances, sizes.race, {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: refreshToken,
  });
  results[`${label}.strictRefreshRace`] = strict.tally;
  check(
    strict.winners.length === 1 && strict.tally["400 invalid_grant"] === sizes.race - 1,
    `${label}, REFRESH_TOKEN_REUSE_SECONDS=0: one refresh token presented ${sizes.race}× at once on ${instances.length} instance(s) → ${JSON.stringify(strict.tally)} (exactly one 200, the rest invalid_grant)`,
  );
  const winner = strict.winners[0]?.body;
  const status = await getLocation(instances[0]!.url, world.locationIds[0]!, winner?.access_token ?? "");
  const again = await postForm(instances[instances.length - 1]!.url, "/oauth/token", {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: winner?.refresh_token ?? "",
  });
  check(
    status === 401 && again.status === 400 && again.body.error === "invalid_grant",
    `${label}, REFRESH_TOKEN_REUSE_SECONDS=0: the reuse revoked the family: the winner's access token ${status}, its refresh token ${again.status} ${again.body.error ?? ""}`,
  );
}

/** Polls `probe` until it returns true; the milliseconds it took, or null after `limitMs`. */
async function timeUntil(probe: () => Promise<boolean>, limitMs = 5000): Promise<number | null> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return Math.round(performance.now() - started);
    if (performance.now() - started > limitMs) return null;
    await sleep(10);
  }
}

async function propagation(one: Instance, two: Instance, world: World) {
  const locationId = world.locationIds[0]!;
  const integrationTimes: number[] = [];
  for (let i = 0; i < sizes.propagation; i++) {
    const owner = { level: "location", locationId } as const;
    const created = await createPrivateIntegration(world.owner, owner, {
      name: `Propagation ${i}`,
      scopes: ["locations.readonly"],
    });
    const before = await getLocation(two.url, locationId, created.token);
    if (before !== 200) {
      check(false, `propagation: a new integration works on instance 2 first (got ${before})`);
      return;
    }
    // Deleted through instance 1's code (lib, same PostgreSQL); the clock starts when the delete commits.
    await deletePrivateIntegration(world.owner, owner, created.integration.id);
    const ms = await timeUntil(async () => (await getLocation(two.url, locationId, created.token)) === 401);
    integrationTimes.push(ms ?? Number.POSITIVE_INFINITY);
  }
  const worst = Math.max(...integrationTimes);
  results["postgres.deletePropagationMs"] = { max: worst, samples: integrationTimes };
  check(
    worst <= 1000,
    `a private integration deleted through instance 1 is refused by instance 2 after at most ${worst} ms (${integrationTimes.length} runs; limit 1000 ms)`,
  );

  // An access token revoked at instance 1's /oauth/revoke is refused by instance 2.
  const { clientId, clientSecret } = world.client;
  const issued = await postForm(one.url, "/oauth/token", {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code: await issueCode(world),
    user_type: "Company",
  });
  const token = issued.body.access_token ?? "";
  const before = await getLocation(two.url, locationId, token);
  const revoked = await postForm(one.url, "/oauth/revoke", {
    client_id: clientId,
    client_secret: clientSecret,
    token,
  });
  const ms = await timeUntil(async () => (await getLocation(two.url, locationId, token)) === 401);
  results["postgres.revokePropagationMs"] = ms;
  check(
    before === 200 && revoked.status === 200 && ms !== null && ms <= 1000,
    `an access token revoked at instance 1 (answer ${revoked.status}) is refused by instance 2 after ${ms} ms (before: ${before})`,
  );
}

/**
 * Access-token signing-key rotation across two instances. The operator rotates through instance 2
 * (POST /api/operator, what the CLI sends to a server); instance 1 signs its next token with the
 * new key at once (it hears of the rotation through NOTIFY token_state). Then the clock makes the
 * new key due (its createdAt moved back in the shared database) and tokens are requested from both
 * instances at once: exactly one more rotation. Every token, from before and after, works on both
 * instances, and both publish every key whose tokens are alive.
 */
async function keyRotation(one: Instance, two: Instance, world: World) {
  const locationId = world.locationIds[0]!;
  const { clientId, clientSecret } = world.client;
  const exchange = async (instance: Instance) => {
    const answer = await postForm(instance.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: clientId,
      client_secret: clientSecret,
      code: await issueCode(world),
      user_type: "Company",
    });
    return answer.body.access_token ?? "";
  };
  const kidOf = (token: string) => {
    try {
      return decodeProtectedHeader(token).kid;
    } catch {
      return undefined;
    }
  };
  const published = async (instance: Instance) => {
    const res = await fetch(`${instance.url}/.well-known/jwks.json`);
    const body = (await res.json()) as { keys: { kid: string }[] };
    return { cacheControl: res.headers.get("cache-control"), kids: body.keys.map((k) => k.kid) };
  };
  const keyCount = () => db().signingKey.count({ where: { use: "access_token" } });

  const first = await exchange(one);
  const rotated = await fetch(`${two.url}/api/operator`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}` },
    body: JSON.stringify({ command: "signing-key:rotate", flags: {} }),
  });
  const manual = (await rotated.json()) as { kid?: string; previousKid?: string };
  const second = await exchange(one);
  results["postgres.keyRotation.manual"] = { status: rotated.status, ...manual, firstKid: kidOf(first) };
  check(
    rotated.status === 200 && manual.previousKid === kidOf(first) && kidOf(second) === manual.kid,
    `signing-key:rotate through instance 2 → ${rotated.status} {kid, previousKid}; instance 1's next token is signed with the new kid at once`,
  );

  // The clock moves on: the key made by the rotation is due; both instances notice together.
  const keysBefore = await keyCount();
  await db().signingKey.update({
    where: { kid: manual.kid ?? "" },
    data: { createdAt: new Date(Date.now() - 91 * 86_400_000) },
  });
  const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => exchange(i % 2 ? two : one)));
  const last = [await exchange(one), await exchange(two)];
  const newKeys = (await keyCount()) - keysBefore;
  const active = await db().signingKey.findMany({ where: { use: "access_token", retiredAt: null } });
  const autoKid = active[0]?.kid;
  results["postgres.keyRotation.automatic"] = { newKeys, autoKid, lastKids: last.map(kidOf) };
  check(
    newKeys === 1 && active.length === 1 && last.every((t) => kidOf(t) === autoKid),
    `automatic rotation with 6 tokens requested at once from both instances: ${newKeys} new key (exactly 1), later tokens of both instances carry it`,
  );

  const tokens = [first, second, ...raced, ...last];
  const statuses = await Promise.all(
    [one, two].flatMap((instance) => tokens.map((token) => getLocation(instance.url, locationId, token))),
  );
  const jwks = [await published(one), await published(two)];
  const kids = [kidOf(first), manual.kid, autoKid];
  results["postgres.keyRotation.verified"] = { statuses, jwks };
  check(
    statuses.every((s) => s === 200) &&
      jwks.every((j) => j.cacheControl === "public, max-age=300" && kids.every((k) => k && j.kids.includes(k))),
    `${tokens.length} tokens signed with 3 keys (before, after signing-key:rotate, after the automatic rotation) work on both instances (${JSON.stringify([...new Set(statuses)])}); both JWKS publish the 3 keys`,
  );
}

/**
 * Webhook-key rotation across two instances (`webhook-key:rotate`, ours). Rotated through instance
 * 2, instance 1 publishes the new key beside the old one at once (NOTIFY token_state) and keeps the
 * PEM of x-ghl-signature on the old key (the 7-day overlap). Two rotations sent to both instances at
 * once come one after the other: each replaces a different key and one active key is left.
 */
async function webhookKeyRotation(one: Instance, two: Instance) {
  const rotate = async (instance: Instance) => {
    const res = await fetch(`${instance.url}/api/operator`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}` },
      body: JSON.stringify({ command: "webhook-key:rotate", flags: {} }),
    });
    return { status: res.status, ...((await res.json()) as { kid?: string; previousKid?: string }) };
  };
  const published = async (instance: Instance) => {
    const jwks = (await (await fetch(`${instance.url}/.well-known/webhook-keys`)).json()) as {
      keys: { kid: string }[];
    };
    const pem = await (await fetch(`${instance.url}/.well-known/webhook-public-key.pem`)).text();
    return { kids: jwks.keys.map((k) => k.kid), pem };
  };

  const before = await published(one);
  const manual = await rotate(two);
  const after = await published(one);
  results["postgres.webhookKeyRotation.manual"] = { ...manual, before: before.kids, after: after.kids };
  check(
    manual.status === 200 &&
      before.kids.length === 1 &&
      manual.previousKid === before.kids[0] &&
      after.kids.join() === [manual.kid, ...before.kids].join() &&
      after.pem === before.pem,
    `webhook-key:rotate through instance 2 → ${manual.status} {kid, previousKid}; instance 1 publishes both keys at once and keeps x-ghl-signature's PEM on the old key`,
  );

  const raced = await Promise.all([rotate(one), rotate(two)]);
  const active = await db().signingKey.findMany({ where: { use: "webhook", retiredAt: null } });
  const chained =
    raced.every((r) => r.status === 200) &&
    new Set(raced.map((r) => r.previousKid)).size === 2 &&
    raced.some((r) => r.previousKid === manual.kid) &&
    raced.some((r) => raced.some((other) => other.kid === r.previousKid));
  results["postgres.webhookKeyRotation.raced"] = { raced, active: active.map((k) => k.kid) };
  check(
    chained && active.length === 1 && raced.some((r) => r.kid === active[0]?.kid),
    `two webhook-key:rotate at once on both instances: two rotations in a row, one active key`,
  );
}

/**
 * SIGKILL `victim` while its deliveries are in flight, restart it, and wait until the receiver has
 * answered every webhook-id (the events exist already, in `expected`).
 */
async function crashMidDelivery(
  label: string,
  victim: Instance,
  receiver: SlowReceiver,
  expected: Set<string>,
  /** Deliveries in flight before the kill; above one instance's concurrency (10) means every instance has some. */
  minInFlight: number,
): Promise<void> {
  const started = Date.now();
  while (receiver.inFlight < minInFlight) {
    if (Date.now() - started > 60_000)
      throw new Error(`${label}: never ${minInFlight} deliveries in flight within 60 s. ${logTail(victim.logFile)}`);
    await sleep(10);
  }
  const inFlight = receiver.inFlight;
  const answeredBefore = receiver.seen.size;
  await victim.kill();
  const killedAt = Date.now();
  say(`${label}: killed ${victim.name} with ${inFlight} deliveries in flight (${answeredBefore} answered before)`);
  const restartMs = await victim.start();
  const deadline = Date.now() + (leaseSeconds + 120) * 1000;
  while ([...expected].some((id) => !receiver.seen.has(id))) {
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  const missing = [...expected].filter((id) => !receiver.seen.has(id));
  const duplicates = [...receiver.seen.values()].filter((n) => n > 1).length;
  results[`${label}.crash`] = {
    events: expected.size,
    inFlightAtKill: inFlight,
    answeredBeforeKill: answeredBefore,
    cutOffByKill: receiver.cutOff,
    restartMs,
    allDeliveredAfterKillMs: missing.length ? null : Date.now() - killedAt,
    deliveredMoreThanOnce: duplicates,
    missing: missing.length,
  };
  check(
    receiver.cutOff > 0 && missing.length === 0,
    `${label}: SIGKILL cut ${receiver.cutOff} deliveries off mid-request (${inFlight} in flight), restart: ${expected.size - missing.length}/${expected.size} webhook-ids delivered (${duplicates} more than once, which at-least-once allows)`,
  );
}

async function postgresScenarios(serverUrl: string) {
  say(`Two production servers on one PostgreSQL database (${new URL(serverUrl).host})`);
  const database = await freshPostgresDatabase(serverUrl, "stress");
  const receiver = await startSlowReceiver(1500);
  // Instances behind one public origin share APP_URL: it is the `iss` of every access token.
  const env = { WEBHOOK_LEASE_SECONDS: String(leaseSeconds), APP_URL: `http://127.0.0.1:${basePort}` };
  const one = makeInstance("pg-instance-1", basePort, database.url, env);
  const two = makeInstance("pg-instance-2", basePort + 1, database.url, env);
  let strictOne: Instance | undefined;
  let strictTwo: Instance | undefined;
  try {
    await openFreshDatabase(database.url);
    const world = await makeWorld(2);
    // One after the other: the first start builds the app when its sources changed.
    results["postgres.startMs"] = [await one.start(), await two.start()];
    await tokenRaces("postgres", [one, two], world);
    await propagation(one, two, world);
    await keyRotation(one, two, world);
    await webhookKeyRotation(one, two);
    const expected = await enqueueInstallEvents(world, receiver, sizes.events);
    await crashMidDelivery("postgres", one, receiver, expected, 11);
    // Both restarted with the reuse window off.
    await Promise.all([one.stop(), two.stop()]);
    const strictEnv = { ...env, REFRESH_TOKEN_REUSE_SECONDS: "0" };
    strictOne = makeInstance("pg-strict-1", basePort, database.url, strictEnv);
    strictTwo = makeInstance("pg-strict-2", basePort + 1, database.url, strictEnv);
    results["postgres.strictStartMs"] = [await strictOne.start(), await strictTwo.start()];
    const exchanged = await postForm(strictOne.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: world.client.clientId,
      client_secret: world.client.clientSecret,
      code: await issueCode(world),
      user_type: "Company",
    });
    await strictRefreshRace("postgres", [strictOne, strictTwo], world, exchanged.body.refresh_token ?? "");
  } finally {
    await Promise.all([one.stop(), two.stop(), strictOne?.stop(), strictTwo?.stop()]);
    await receiver.close();
    await disconnectDb();
    await database.drop();
  }
}

async function pgliteScenarios() {
  say("One production server on the embedded PGlite database");
  const dir = mkdtempSync(join(tmpdir(), "stress-pglite-"));
  const url = `file:${join(dir, "pglite")}`;
  const receiver = await startSlowReceiver(1500);
  const instance = makeInstance("pglite-instance", basePort + 2, url, { WEBHOOK_LEASE_SECONDS: String(leaseSeconds) });
  let strict: Instance | undefined;
  try {
    // PGlite belongs to one process: seed (and enqueue the webhooks) before the server opens it.
    await openFreshDatabase(url);
    const world = await makeWorld(2);
    const expected = await enqueueInstallEvents(world, receiver, sizes.events);
    const codes = { race: await issueCode(world), refresh: await issueCode(world), strict: await issueCode(world) };
    await disconnectDb();
    results["pglite.startMs"] = await instance.start();
    await crashMidDelivery("pglite", instance, receiver, expected, 6);
    await pgliteTokenRaces(instance, world, codes);
    // Restarted with the reuse window off.
    await instance.stop();
    strict = makeInstance("pglite-strict", basePort + 2, url, {
      WEBHOOK_LEASE_SECONDS: String(leaseSeconds),
      REFRESH_TOKEN_REUSE_SECONDS: "0",
    });
    results["pglite.strictStartMs"] = await strict.start();
    const exchanged = await postForm(strict.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: world.client.clientId,
      client_secret: world.client.clientSecret,
      code: codes.strict,
      user_type: "Company",
    });
    await strictRefreshRace("pglite", [strict], world, exchanged.body.refresh_token ?? "");
  } finally {
    await instance.stop();
    await strict?.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The token races on one instance, with codes issued before it started (it owns the database now). */
async function pgliteTokenRaces(instance: Instance, world: World, codes: { race: string; refresh: string }) {
  const { clientId, clientSecret } = world.client;
  const base = { client_id: clientId, client_secret: clientSecret };
  const codeRace = await race([instance], sizes.race, {
    ...base,
    grant_type: "authorization_code",
    code: codes.race,
    user_type: "Company",
  });
  results["pglite.codeRace"] = codeRace.tally;
  check(
    codeRace.winners.length === 1,
    `pglite: one code redeemed ${sizes.race}× at once → ${JSON.stringify(codeRace.tally)}`,
  );
  const exchanged = await postForm(instance.url, "/oauth/token", {
    ...base,
    grant_type: "authorization_code",
    code: codes.refresh,
    user_type: "Company",
  });
  await refreshRaceInsideWindow("pglite", [instance], world, exchanged.body.refresh_token ?? "");
}

function fuzz() {
  say(`Fuzzing every route: FUZZ_RUNS=${sizes.fuzzRuns} per route`);
  const started = Date.now();
  const run = spawnSync(resolve("node_modules/.bin/vitest"), ["run", "lib/api/fuzz.test.ts"], {
    stdio: "inherit",
    env: { ...process.env, FUZZ_RUNS: String(sizes.fuzzRuns) },
  });
  results.fuzz = { runsPerRoute: sizes.fuzzRuns, seconds: Math.round((Date.now() - started) / 1000) };
  check(run.status === 0, `fuzzing: ${sizes.fuzzRuns} requests per route, never a 5xx, always SPEC.md's error body`);
}

async function main() {
  const started = Date.now();
  mkdirSync(stressDir, { recursive: true });
  if (!short) fuzz();
  if (postgresServer) await postgresScenarios(postgresServer);
  else say("Two-instance tests skipped: they need PostgreSQL (set TEST_DATABASE_URL); PGlite is one process.");
  if (!short || !postgresServer) await pgliteScenarios();
  results.seconds = Math.round((Date.now() - started) / 1000);
  results.checks = { passed, failed: failures.length };
  results.failures = failures;
  writeFileSync(resolve(stressDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  say(`Results in ${resolve(stressDir, "results.json")}`);
  console.log(JSON.stringify(results, null, 2));
  say(failures.length ? `${failures.length} check(s) FAILED` : `every check passed in ${results.seconds} s`);
  process.exit(failures.length ? 1 : 0);
}

main().catch(async (error) => {
  console.error(`[stress] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await disconnectDb().catch(() => {});
  process.exit(1);
});
