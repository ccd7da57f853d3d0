import { db, disconnectDb } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { makeAgency, newContact } from "@/lib/testing/fixtures";
import { integrationPrincipal } from "@/lib/testing/integration-principal";
import { standbyClusterUnavailable, startStandbyCluster } from "@/lib/testing/standby-cluster";
import { logTail } from "../support/production-server";
import { check, results, say } from "./context";
import { makeInstance, sleep } from "./instances";

/**
 * SPEC.md › Failover, against the production server as `npm start` runs it: a primary and a
 * synchronous standby (lib/testing/standby-cluster.ts), the server started on
 * `postgresql://…@primary,standby/postgres?target_session_attrs=read-write` (its start migrates and
 * seeds through the host list), six clients creating contacts over HTTP, the primary stopped at
 * once, the standby promoted 1.5 s later. lib/db/failover.test.ts checks the same in-process in
 * Vitest; this is the real server's edge, its start and its background work.
 */
export async function failoverChecks(port: number) {
  const unavailable = standbyClusterUnavailable();
  if (unavailable) {
    say(`Failover against the production server skipped: ${unavailable}`);
    return;
  }
  say("Failover: the production server on a primary and its synchronous standby");
  const cluster = await startStandbyCluster();
  const previousUrl = process.env.DATABASE_URL;
  const instance = makeInstance("pg-failover", port, cluster.url, { RATE_LIMIT_BURST: "100000000", LOG_LEVEL: "warn" });
  try {
    let startMs: number;
    try {
      startMs = await instance.start();
    } catch (error) {
      say(logTail(instance.logFile));
      check(false, `failover: npm start on a multi-host DATABASE_URL (${String(error)})`);
      return;
    }
    results["failover.startMs"] = startMs;
    check(
      true,
      "failover: npm start migrates, seeds and serves on a multi-host DATABASE_URL (target_session_attrs=read-write)",
    );
    await disconnectDb();
    process.env.DATABASE_URL = cluster.url;
    resetEnvCache();
    const T = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const locationId = T.locations[0]?.id as string;
    const { token } = await integrationPrincipal(T, ["contacts.write"], { locationId });

    const outcomes: { status: number; ms: number; at: number; retryAfter: string | null; error?: string }[] = [];
    const acknowledged: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const started = performance.now();
        let status = 0;
        let body: { contact?: { id: string }; error?: string } = {};
        let retryAfter: string | null = null;
        try {
          const res = await fetch(`${instance.url}/contacts`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, version: "2021-07-28", "content-type": "application/json" },
            body: JSON.stringify(newContact(locationId)),
            signal: AbortSignal.timeout(10_000),
          });
          status = res.status;
          retryAfter = res.headers.get("retry-after");
          body = (await res.json()) as typeof body;
        } catch {
          status = -1; // no answer (a hang cut by the timeout, a dropped connection)
        }
        outcomes.push({ status, ms: performance.now() - started, at: Date.now(), retryAfter, error: body.error });
        if (status === 201 && body.contact) acknowledged.push(body.contact.id);
        else await sleep(50);
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    const until = async (what: string, done: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await sleep(20);
      if (!done()) say(`failover: ${what} did not happen within ${ms} ms`);
    };
    await until("100 writes", () => acknowledged.length >= 100, 30_000);
    const stoppedAt = Date.now();
    cluster.stopPrimary();
    await sleep(1_500);
    const promotedAt = Date.now();
    cluster.promoteStandby();
    const atPromotion = acknowledged.length;
    await until("50 writes after the promotion", () => acknowledged.length >= atPromotion + 50, 30_000);
    writing = false;
    await Promise.all(writers);

    const gap = outcomes.filter((o) => o.at > stoppedAt && o.status !== 201);
    const answers: Record<string, number> = {};
    for (const o of outcomes)
      answers[`${o.status} ${o.error ?? ""}`.trim()] = (answers[`${o.status} ${o.error ?? ""}`.trim()] ?? 0) + 1;
    const slowest = Math.round(Math.max(0, ...gap.map((o) => o.ms)));
    const resumedMs = (outcomes.find((o) => o.at > promotedAt && o.status === 201)?.at ?? Number.NaN) - promotedAt;
    const found = await db().contact.count({ where: { id: { in: acknowledged } } });
    const ready = await fetch(`${instance.url}/api/ready`).then((r) => r.status);
    results.failover = { answers, slowestRefusalMs: slowest, resumedMs, acknowledged: acknowledged.length, found };
    check(
      gap.length > 0 &&
        gap.every((o) => o.status === 503 && o.error === "temporarily_unavailable" && o.retryAfter === "1"),
      `failover: every request in the gap answered 503 temporarily_unavailable with Retry-After: 1 (${JSON.stringify(answers)})`,
    );
    check(
      outcomes.every((o) => o.status === 201 || o.status === 503),
      "failover: no 500, no request without an answer",
    );
    check(slowest < 2_000, `failover: the slowest refusal took ${slowest} ms (never a hang)`);
    check(
      resumedMs >= 0 && acknowledged.length >= atPromotion + 50 && ready === 200,
      `failover: the same server resumed on the promoted standby ${resumedMs} ms after the promotion, /api/ready ${ready}`,
    );
    check(
      found === acknowledged.length,
      `failover: ${found} of ${acknowledged.length} acknowledged contacts on the promoted standby`,
    );
  } finally {
    await instance.stop();
    await disconnectDb();
    cluster.remove();
    if (previousUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previousUrl;
    resetEnvCache();
  }
}
