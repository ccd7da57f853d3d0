import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { databaseHandle, db, disconnectDb } from "@/lib/db/client";
import { deployMigrations } from "@/lib/db/migrations";
import { resetEnvCache } from "@/lib/env";
import { type ApiAnswer, apiClient } from "@/lib/testing/api-client";
import { makeAgency, newContact } from "@/lib/testing/fixtures";
import { integrationPrincipal } from "@/lib/testing/integration-principal";
import { type StandbyCluster, standbyClusterUnavailable, startStandbyCluster } from "@/lib/testing/standby-cluster";
import { hostChooser } from "./host-choice";

/**
 * Failover (SPEC.md › Running it as a platform runs it): a primary and a synchronous streaming
 * standby made here (lib/testing/standby-cluster.ts), the service on
 * `postgresql://…@primary,standby/postgres?target_session_attrs=read-write` (migrated through it),
 * writes under load through the API's own handlers (POST /contacts), the primary stopped at once
 * (`pg_ctl stop -m immediate`), the standby promoted. Requests in the gap get 503
 * temporarily_unavailable with Retry-After within a second; the same process goes on against the
 * promoted standby; every contact answered 201 is there.
 *
 * Runs in the PostgreSQL run of npm test (TEST_DATABASE_URL set; .ci/run's second run), as root
 * with the PostgreSQL server programs installed; skipped with the reason otherwise.
 */
const skipped =
  standbyClusterUnavailable() ??
  (process.env.TEST_DATABASE_URL ? undefined : "it runs in the PostgreSQL run of npm test (TEST_DATABASE_URL set)");
if (skipped) console.warn(`Failover test skipped: ${skipped}.`);

/** Concurrent clients writing. */
const WRITERS = 6;

interface Outcome {
  status: number;
  ms: number;
  at: number;
  answer: ApiAnswer;
}

describe.skipIf(skipped)(`failover to a promoted synchronous standby${skipped ? ` (skipped: ${skipped})` : ""}`, () => {
  let cluster: StandbyCluster;
  const previousUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    cluster = await startStandbyCluster();
    await disconnectDb();
    process.env.DATABASE_URL = cluster.url;
    // Counted (the counters' own pool goes through the failover too), never refusing.
    process.env.RATE_LIMIT_BURST = "100000000";
    resetEnvCache();
    // The migrations go through the host list: the schema engine on the writable host.
    await deployMigrations(databaseHandle().adapterFactory);
  }, 90_000);

  afterAll(async () => {
    await disconnectDb();
    cluster?.remove();
    if (previousUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previousUrl;
    resetEnvCache();
  });

  it("answers 503 with Retry-After in the gap, resumes on the promoted standby without a restart, and loses no acknowledged write", async () => {
    const T = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const locationId = T.locations[0]?.id as string;
    const { token } = await integrationPrincipal(T, ["contacts.write"], { locationId });
    const api = apiClient(apiRoutes, { token });
    const chooser = hostChooser(cluster.url);
    expect(chooser?.current?.port).toBe(cluster.primaryPort);

    const outcomes: Outcome[] = [];
    const acknowledged: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const started = performance.now();
        const answer = await api.post("/contacts", { json: newContact(locationId) });
        outcomes.push({ status: answer.status, ms: performance.now() - started, at: Date.now(), answer });
        if (answer.status === 201) acknowledged.push(answer.body.contact.id);
        // A client honouring Retry-After would wait; a short pause keeps the gap busy with requests.
        if (answer.status !== 201) await new Promise((done) => setTimeout(done, 50));
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    const waitFor = async (what: string, until: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!until()) {
        if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
        await new Promise((done) => setTimeout(done, 20));
      }
    };

    await waitFor("100 writes before the stop", () => acknowledged.length >= 100, 20_000);
    const beforeStop = acknowledged.length;
    const stoppedAt = Date.now();
    cluster.stopPrimary();
    // The gap: the standby is not promoted yet; every request must be refused quickly, not hang.
    await waitFor("a 503 in the gap", () => outcomes.some((o) => o.at > stoppedAt && o.status === 503), 5_000);
    await new Promise((done) => setTimeout(done, 1_500));
    const promotedAt = Date.now();
    cluster.promoteStandby();
    const ackedAtPromotion = acknowledged.length;
    await waitFor("a write on the promoted standby", () => acknowledged.length > ackedAtPromotion + 50, 15_000);
    const resumedAfterMs = (outcomes.find((o) => o.at > promotedAt && o.status === 201)?.at ?? 0) - promotedAt;
    writing = false;
    await Promise.all(writers);

    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    const refused = outcomes.filter((o) => o.status !== 201);
    const refusalMs = refused.map((o) => o.ms).sort((a, b) => a - b);
    const slowestRefusalMs = refusalMs.at(-1) ?? 0;
    const p95RefusalMs = refusalMs[Math.floor(refusalMs.length * 0.95)] ?? 0;
    console.log(
      `failover: ${outcomes.length} requests (${[...byStatus].map(([s, n]) => `${n}×${s}`).join(", ")}); ` +
        `${beforeStop} acknowledged before the stop, ${acknowledged.length} in all; refusals in ${Math.round(p95RefusalMs)} ms ` +
        `(95th percentile), the slowest ${Math.round(slowestRefusalMs)} ms; ` +
        `first 201 ${resumedAfterMs} ms after the promotion`,
    );

    // Only 201 and 503: no 500 server_error, no other answer.
    expect([...byStatus.keys()].sort()).toEqual([201, 503]);
    for (const { answer } of refused) {
      expect(answer.headers.get("retry-after")).toBe("1");
      expect(answer.body).toEqual({
        error: "temporarily_unavailable",
        error_description: expect.stringMatching(/database.*Retry after 1 second/),
        statusCode: 503,
        traceId: answer.headers.get("x-trace-id"),
      });
    }
    // Refused within a second (SPEC.md), never left hanging; the slowest is allowed a second more
    // for a CI machine whose two cores run other suites at once (the figures: bench-results.md).
    expect(p95RefusalMs).toBeLessThan(1_000);
    expect(slowestRefusalMs).toBeLessThan(2_000);
    // The same process goes on, on the promoted standby.
    expect(chooser?.current?.port).toBe(cluster.standbyPort);
    const onStandby = await db().$queryRaw<{ recovery: boolean }[]>`SELECT pg_is_in_recovery() AS recovery`;
    expect(onStandby[0]?.recovery).toBe(false);
    // Every write answered 201 is on the promoted standby (synchronous replication).
    const found = await db().contact.count({ where: { id: { in: acknowledged } } });
    expect(found).toBe(acknowledged.length);
  }, 90_000);
});
