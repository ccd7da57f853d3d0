import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { openDatabase } from "@/lib/db/adapter";
import { databaseHandle, db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { pruneOnce } from "@/lib/maintenance/prune";
import { apiClient, getLocation } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";
import { startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";
import { outcomeOf, prismaUsageQuery, resetUsageCounter, UsageCounter, type UsageQuery, usageCounter } from "./counter";
import {
  appUsageDays,
  integrationUsageDays,
  integrationUsageTotals,
  lastRefusedRequest,
  ownerRequestsLast7Days,
} from "./read";

const BURST = 5;
const api = apiClient(apiRoutes);
withBurstLimit(BURST);

let agency: TestAgency;
beforeAll(async () => {
  agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  resetUsageCounter(new UsageCounter());
});
afterAll(() => resetUsageCounter());

const today = () => new Date().toISOString().slice(0, 10);

/** The address the calls come from (its refused calls to another sub-account, from a second one). */
const office = { peer: "203.0.113.7" };

async function statuses(calls: (() => Promise<{ status: number }>)[]): Promise<number[]> {
  const out: number[] = [];
  for (const call of calls) out.push((await call()).status);
  return out;
}

describe("outcomes", () => {
  it.each([
    [200, "ok"],
    [201, "ok"],
    [400, "refused"],
    [401, "refused"],
    [403, "refused"],
    [404, "refused"],
    [429, "limited"],
    [500, undefined],
    [302, undefined],
  ])("%i counts as %s", (status, outcome) => expect(outcomeOf(status)).toBe(outcome));
});

describe("through the real route handlers, N requests of each outcome give exactly those counts", () => {
  it("a private integration: ok, refused (with the last refusal) and limited", async () => {
    const mine = agency.locations[0]!;
    const other = agency.locations[1]!;
    const { token, integration } = await makeIntegration(agency, { locationId: mine.id, name: "Counted" });
    await startOfBurstWindow();
    const got = await statuses([
      ...Array.from({ length: 3 }, () => () => getLocation(api, token, mine.id, office)),
      ...Array.from({ length: 2 }, () => () => getLocation(api, token, other.id, { peer: "198.51.100.9" })),
      ...Array.from({ length: 4 }, () => () => getLocation(api, token, mine.id, office)),
    ]);
    expect(got.filter((s) => s === 200)).toHaveLength(3);
    expect(got.filter((s) => s === 429)).toHaveLength(4);
    const refusedStatus = got[3] as number;
    expect(refusedStatus).toBeGreaterThanOrEqual(400);
    // Not counted: no token, or a token nobody knows.
    await getLocation(api, "pit-00000000-0000-0000-0000-000000000000", mine.id, office);
    expect(await usageCounter().flush()).toBe(true);

    const days = await integrationUsageDays(integration.id, 30, new Date());
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toEqual({ date: today(), ok: 3, refused: 2, limited: 4 });
    expect(days.slice(0, -1).every((d) => d.ok + d.refused + d.limited === 0)).toBe(true);
    const totals = await integrationUsageTotals(integration.id, new Date());
    expect(totals.last24Hours).toEqual({ ok: 3, refused: 2, limited: 4, total: 9 });
    expect(totals.last7Days).toEqual(totals.last24Hours);
    const list = await ownerRequestsLast7Days({ companyId: agency.company.id, locationId: mine.id }, new Date());
    expect(Object.fromEntries(list)).toEqual({ [integration.id]: 9 });

    const refusal = await lastRefusedRequest(integration.id);
    expect(refusal).toMatchObject({
      address: "198.51.100.9",
      endpoint: `GET /locations/${other.id}`,
      errorCode: refusedStatus === 403 ? "forbidden" : "not_found",
    });
    expect(refusal?.description.length).toBeGreaterThan(10);
    expect(Date.now() - (refusal?.at.getTime() ?? 0)).toBeLessThan(60_000);
  });

  it("an app installation, /oauth/installedLocations included, summed on the app's page", async () => {
    const developer = await makeAgency({ locations: 0 });
    const app: CreatedApp = await makeApp(developer.company.id);
    const companyToken = (
      await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[0]!.id] })
    ).access_token;
    const installed = (query = `companyId=${agency.company.id}`) =>
      api.get(`/oauth/installedLocations?${query}`, { token: companyToken });
    await startOfBurstWindow();
    const ok = () => installed();
    const got = await statuses([ok, ok, () => installed("companyId="), ok, ok, ok, ok]);
    expect(got).toEqual([200, 200, 400, 200, 200, 429, 429]);
    expect(await usageCounter().flush()).toBe(true);
    const days = await appUsageDays(app.app.id, 7, new Date());
    expect(days.at(-1)).toEqual({ date: today(), ok: 4, refused: 1, limited: 2 });
  });
});

describe("batches", () => {
  const subject = () => ({ type: "integration" as const, id: `usage-${uniqueSuffix()}` });

  it("two instances' counters on one database sum exactly", async () => {
    const pg = databaseHandle().kind === "postgresql";
    const otherHandle = pg ? openDatabase(env().DATABASE_URL) : undefined;
    const other = otherHandle ? new PrismaClient({ adapter: otherHandle.adapterFactory }) : undefined;
    const otherQuery: UsageQuery = other
      ? (text, values) => other.$executeRawUnsafe(text, ...values)
      : prismaUsageQuery;
    try {
      const a = new UsageCounter();
      const b = new UsageCounter(otherQuery);
      const s = subject();
      const now = new Date();
      const rounds = 20;
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < 50; i++) {
          a.count(s, "ok", now);
          b.count(s, "ok", now);
          if (i % 5 === 0)
            b.count(s, "refused", now, { address: "a", endpoint: "GET /x", errorCode: "e", description: "d" });
          if (i % 10 === 0) a.count(s, "limited", now);
        }
        expect(await Promise.all([a.flush(), b.flush()])).toEqual([true, true]);
      }
      const days = await integrationUsageDays(s.id, 1, now);
      expect(days).toEqual([{ date: now.toISOString().slice(0, 10), ok: 2000, refused: 200, limited: 100 }]);
      await Promise.all([a.stop(), b.stop()]);
    } finally {
      await other?.$disconnect();
      await otherHandle?.close();
    }
  });

  it("a failed flush is logged and retried: nothing is lost, nothing counted twice", async () => {
    let fail = true;
    const flaky: UsageQuery = async (text, values) => {
      if (fail) throw new Error("connection reset");
      return prismaUsageQuery(text, values);
    };
    const counter = new UsageCounter(flaky);
    const s = subject();
    const now = new Date();
    for (let i = 0; i < 7; i++) counter.count(s, "ok", now);
    counter.count(s, "refused", now, { address: "x", endpoint: "GET /a", errorCode: "forbidden", description: "no" });
    expect(await counter.flush()).toBe(false);
    expect(counter.pending).toBe(true);
    counter.count(s, "ok", now); // counted while the failed batch waits
    fail = false;
    expect(await counter.flush()).toBe(true);
    expect(counter.pending).toBe(false);
    expect(await integrationUsageDays(s.id, 1, now)).toEqual([
      { date: now.toISOString().slice(0, 10), ok: 8, refused: 1, limited: 0 },
    ]);
    expect(await lastRefusedRequest(s.id)).toMatchObject({ endpoint: "GET /a", errorCode: "forbidden" });
    await counter.stop();
  });

  it("the timer flushes within its interval, so a killed process loses at most that; a stopped one nothing", async () => {
    const counter = new UsageCounter(prismaUsageQuery, 200);
    const s = subject();
    const now = new Date();
    for (let i = 0; i < 10; i++) counter.count(s, "ok", now);
    // The timer flushes on its own (no flush() called): what a kill after this tick would leave.
    for (let i = 0; i < 500 && counter.pending; i++) await new Promise((r) => setTimeout(r, 20));
    expect(counter.pending).toBe(false);
    await counter.flush(); // waits for the write in flight; nothing new to add
    expect((await integrationUsageDays(s.id, 1, now))[0]?.ok).toBe(10);
    // Counted after the tick: a kill now would lose this one; stopping (SIGTERM) writes it.
    counter.count(s, "ok", now);
    expect(counter.pending).toBe(true);
    expect(await counter.stop()).toBe(true);
    expect((await integrationUsageDays(s.id, 1, now))[0]?.ok).toBe(11);
  });

  it("the last refused request is the latest one across batches and instances", async () => {
    const a = new UsageCounter();
    const b = new UsageCounter();
    const s = subject();
    const t = (ms: number) => new Date(Date.parse("2026-11-20T10:00:00Z") + ms);
    const refusal = (endpoint: string) => ({ address: "x", endpoint, errorCode: "forbidden", description: "d" });
    a.count(s, "refused", t(2_000), refusal("GET /newer"));
    b.count(s, "refused", t(1_000), refusal("GET /older"));
    await a.flush();
    await b.flush();
    expect((await lastRefusedRequest(s.id))?.endpoint).toBe("GET /newer");
  });
});

describe("retention", () => {
  it("the pruner deletes counts and last refusals older than 90 days, and keeps the rest", async () => {
    const counter = new UsageCounter();
    const s = { type: "integration" as const, id: `usage-${uniqueSuffix()}` };
    const now = new Date();
    const old = new Date(now.getTime() - 91 * 86_400_000);
    const recent = new Date(now.getTime() - 89 * 86_400_000);
    const r = { address: "x", endpoint: "GET /a", errorCode: "forbidden", description: "d" };
    counter.count(s, "ok", old, r);
    counter.count(s, "refused", old, r);
    counter.count(s, "ok", recent);
    await counter.flush();
    await pruneOnce({ now, pauseMs: 0 });
    const rows = await db().apiUsageHour.findMany({ where: { subjectId: s.id } });
    expect(rows.map((row) => row.hour.getTime())).toEqual([Math.floor(recent.getTime() / 3_600_000) * 3_600_000]);
    expect(await lastRefusedRequest(s.id)).toBeUndefined();
  });
});
