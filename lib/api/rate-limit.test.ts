import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { databaseHandle, db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { apiClient, expectError } from "@/lib/testing/api-client";
import { later } from "@/lib/testing/clock";
import { makeAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { secondInstance } from "@/lib/testing/second-instance";
import {
  BURST_WINDOW_MS,
  type CounterStore,
  counterQuery,
  DatabaseCounterStore,
  hitRateLimit,
  MemoryCounterStore,
  type RateLimits,
} from "./rate-limit";

const api = apiClient(apiRoutes);
const limits: RateLimits = { burst: 100, daily: 200_000 };
// A window start, so 10 seconds from here are one window.
const t0 = new Date(Math.ceil(Date.parse("2031-03-04T05:06:00.000Z") / BURST_WINDOW_MS) * BURST_WINDOW_MS);

const stores: [string, () => CounterStore][] = [
  ["memory", () => new MemoryCounterStore()],
  ["database", () => new DatabaseCounterStore()],
];

describe.each(stores)("%s counters", (_name, makeStore) => {
  it("lets 100 requests through in 10 seconds and refuses the 101st with Retry-After to the window's end", async () => {
    const store = makeStore();
    const subject = `app:${uniqueSuffix()}|location:x`;
    for (let i = 1; i <= 100; i++) {
      const decision = await hitRateLimit(subject, { now: later(t0, i * 10), limits, store });
      expect(decision.allowed).toBe(true);
      expect(decision.headers["x-ratelimit-remaining"]).toBe(String(100 - i));
    }
    const refused = await hitRateLimit(subject, { now: later(t0, 3_500), limits, store });
    expect(refused).toEqual({
      allowed: false,
      refusedBy: "burst",
      retryAfter: 7,
      headers: {
        "x-ratelimit-limit-daily": "200000",
        "x-ratelimit-daily-remaining": "199900",
        "x-ratelimit-interval-milliseconds": "10000",
        "x-ratelimit-max": "100",
        "x-ratelimit-remaining": "0",
      },
    });
    // The next window starts afresh; the refused request did not count against the day.
    const next = await hitRateLimit(subject, { now: later(t0, BURST_WINDOW_MS), limits, store });
    expect(next.allowed).toBe(true);
    expect(next.headers["x-ratelimit-remaining"]).toBe("99");
    expect(next.headers["x-ratelimit-daily-remaining"]).toBe("199899");
  });

  it("subjects are separate: another app or sub-account has its own budget", async () => {
    const store = makeStore();
    const small = { burst: 2, daily: 0 };
    const a = `app:${uniqueSuffix()}|location:1`;
    const b = `app:${uniqueSuffix()}|location:1`;
    for (let i = 0; i < 2; i++) expect((await hitRateLimit(a, { now: t0, limits: small, store })).allowed).toBe(true);
    expect((await hitRateLimit(a, { now: t0, limits: small, store })).allowed).toBe(false);
    expect((await hitRateLimit(b, { now: t0, limits: small, store })).allowed).toBe(true);
  });

  it("the daily limit refuses until the next UTC day", async () => {
    const store = makeStore();
    const subject = `pit:${uniqueSuffix()}|company:c`;
    const daily = { burst: 100, daily: 3 };
    const noon = new Date("2031-03-04T12:00:00.000Z");
    for (let i = 0; i < 3; i++) {
      expect(
        (await hitRateLimit(subject, { now: new Date(noon.getTime() + i * 20_000), limits: daily, store })).allowed,
      ).toBe(true);
    }
    const refused = await hitRateLimit(subject, { now: new Date(noon.getTime() + 60_000), limits: daily, store });
    expect(refused).toMatchObject({ allowed: false, refusedBy: "daily", retryAfter: 12 * 3600 - 60 });
    expect(refused.headers["x-ratelimit-daily-remaining"]).toBe("0");
    const tomorrow = await hitRateLimit(subject, { now: new Date("2031-03-05T00:00:00.000Z"), limits: daily, store });
    expect(tomorrow.allowed).toBe(true);
  });

  it("0 turns a limit off: no counting, no headers for it", async () => {
    const store = makeStore();
    const subject = `app:${uniqueSuffix()}|location:z`;
    const burstOnly = { burst: 1, daily: 0 };
    const first = await hitRateLimit(subject, { now: t0, limits: burstOnly, store });
    expect(first.headers).toEqual({
      "x-ratelimit-interval-milliseconds": "10000",
      "x-ratelimit-max": "1",
      "x-ratelimit-remaining": "0",
    });
    expect((await hitRateLimit(subject, { now: t0, limits: { burst: 0, daily: 0 }, store })).allowed).toBe(true);
    const dailyOnly = await hitRateLimit(subject, { now: t0, limits: { burst: 0, daily: 5 }, store });
    expect(dailyOnly.headers).toEqual({ "x-ratelimit-limit-daily": "5", "x-ratelimit-daily-remaining": "4" });
  });

  it("200 concurrent requests: exactly 100 let through", async () => {
    const store = makeStore();
    const subject = `app:${uniqueSuffix()}|location:c`;
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => hitRateLimit(subject, { now: later(t0, i), limits, store })),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
  });
});

describe("database counters coalesce the hits that arrive together", () => {
  it("200 concurrent hits of one subject: fewer statements than hits, each hit its own count, the day counts the 100 allowed", async () => {
    let statements = 0;
    const store = new DatabaseCounterStore((text, values) => {
      statements += 1;
      return counterQuery(text, values);
    });
    const subject = `app:${uniqueSuffix()}|location:batch`;
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => hitRateLimit(subject, { now: later(t0, i), limits, store })),
    );
    expect(statements).toBeLessThan(200);
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(100);
    // As 100 single increments: remaining 99, 98, …, 0, each exactly once, in arrival order.
    expect(allowed.map((d) => Number(d.headers["x-ratelimit-remaining"]))).toEqual(
      Array.from({ length: 100 }, (_, i) => 99 - i),
    );
    expect(allowed.map((d) => Number(d.headers["x-ratelimit-daily-remaining"]))).toEqual(
      Array.from({ length: 100 }, (_, i) => limits.daily - 1 - i),
    );
    expect(decisions.slice(100).every((d) => !d.allowed && d.refusedBy === "burst")).toBe(true);
    const next = await hitRateLimit(subject, { now: later(t0, BURST_WINDOW_MS), limits, store });
    expect(next.headers["x-ratelimit-daily-remaining"]).toBe(String(limits.daily - 101));
  });

  it("a failed statement lets every hit of its batch through (logged), and the next batch counts again", async () => {
    let fail = true;
    const store = new DatabaseCounterStore((text, values) =>
      fail ? Promise.reject(new Error("connection refused")) : counterQuery(text, values),
    );
    const subject = `app:${uniqueSuffix()}|location:down`;
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => hitRateLimit(subject, { now: later(t0, i), limits, store })),
    );
    expect(decisions.every((d) => d.allowed && d.headers["x-ratelimit-remaining"] === undefined)).toBe(true);
    fail = false;
    const after = await hitRateLimit(subject, { now: later(t0, 50), limits, store });
    expect(after.headers["x-ratelimit-remaining"]).toBe("99");
  });
});

describe("ended windows are deleted from the table in the background", () => {
  it("removes rows whose window ended", async () => {
    const store = new DatabaseCounterStore();
    const key = `b|cleanup-${uniqueSuffix()}|1`;
    await db().rateLimitCounter.create({ data: { key, count: 3, expiresAt: new Date(Date.now() - 60_000) } });
    await store.hit(
      { key: `b|live-${uniqueSuffix()}|1`, expiresAt: new Date(Date.now() + 10_000) },
      undefined,
      10,
      new Date(),
    );
    await expect.poll(() => db().rateLimitCounter.findUnique({ where: { key } })).toBeNull();
  });
});

describe("through the route: the 101st request in 10 seconds", () => {
  it("gets 429 rate_limited with Retry-After and the X-RateLimit-* headers; every answer carries them", async () => {
    expect(env().RATE_LIMIT_BURST).toBe(100);
    const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const locationId = agency.locations[0]!.id;
    const { token } = await makeIntegration(agency, { locationId, name: "Busy" });
    // Start early in a window so the 101 requests fall in one.
    const into = Date.now() % BURST_WINDOW_MS;
    if (into > 4_000) await new Promise((r) => setTimeout(r, BURST_WINDOW_MS - into + 20));
    const call = () => api.get(`/locations/${locationId}`, { token });
    for (let i = 1; i <= 100; i++) {
      const response = await call();
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(100 - i));
      expect(response.headers.get("x-ratelimit-max")).toBe("100");
      expect(response.headers.get("x-ratelimit-interval-milliseconds")).toBe("10000");
      expect(response.headers.get("x-ratelimit-limit-daily")).toBe("200000");
      expect(response.headers.get("x-ratelimit-daily-remaining")).toBe(String(200_000 - i));
    }
    const refused = await call();
    expectError(refused, 429, "rate_limited", /100 requests per 10 seconds.*Retry after \d+ seconds/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-daily-remaining")).toBe("199900");
  });

  it("answers before authentication carry the limits (there is no caller to count yet)", async () => {
    const response = await api.get("/locations/x");
    expect(response.status).toBe(401);
    expect(response.headers.get("x-ratelimit-max")).toBe("100");
    expect(response.headers.get("x-ratelimit-limit-daily")).toBe("200000");
    expect(response.headers.get("x-ratelimit-remaining")).toBeNull();
  });
});

// Two PrismaClients with pools of their own stand in for two app instances sharing PostgreSQL.
describe.runIf(databaseHandle().kind === "postgresql")("two instances on PostgreSQL", () => {
  const second = secondInstance();

  it("share one budget: of 150 concurrent requests split across them, exactly 100 pass", async () => {
    const one = new DatabaseCounterStore();
    const two = new DatabaseCounterStore((text, values) => second().$queryRawUnsafe(text, ...values));
    const subject = `app:${uniqueSuffix()}|location:two`;
    const decisions = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        hitRateLimit(subject, { now: later(t0, i), limits, store: i % 2 ? one : two }),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => d.retryAfter === 10 && d.headers["x-ratelimit-remaining"] === "0")).toBe(true);
    // The day counted only the 100 that passed.
    const last = await hitRateLimit(subject, { now: later(t0, BURST_WINDOW_MS), limits, store: two });
    expect(last.headers["x-ratelimit-daily-remaining"]).toBe(String(200_000 - 101));
  });

  it("counts on connections whose commits do not wait for the disk, and only the counters do", async () => {
    const [counters] = await counterQuery<{ synchronous_commit: string }>("SHOW synchronous_commit", []);
    expect(counters?.synchronous_commit).toBe("off");
    const [others] = await db().$queryRawUnsafe<{ synchronous_commit: string }[]>("SHOW synchronous_commit");
    expect(others?.synchronous_commit).toBe("on");
  });
});
