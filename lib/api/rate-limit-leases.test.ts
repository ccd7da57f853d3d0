import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { waitFor } from "@/lib/testing/elsewhere";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import {
  BURST_WINDOW_MS,
  counterQuery,
  DatabaseCounterStore,
  hitRateLimit,
  MemoryCounterStore,
  type RateLimitDecision,
  type RateLimits,
} from "./rate-limit";
import { claimAhead, FIRST_AHEAD, HeldNumbers, MAX_AHEAD } from "./rate-limit-leases";
import type { Query } from "./rate-limit-store";

// A window start, so each 10 seconds from here are one window, all in one UTC day.
const t0 = Math.ceil(Date.parse("2031-05-06T07:00:00.000Z") / BURST_WINDOW_MS) * BURST_WINDOW_MS;

/** The counters' statements, each after 0–3 ms, so claims come back in any order. */
const slowQuery: Query = async (text, values) => {
  await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
  return counterQuery(text, values);
};

/** Requests arriving together: `size` of them in `window`, from `offset` ms into it. */
const group = fc.record({
  window: fc.integer({ min: 0, max: 2 }),
  offset: fc.integer({ min: 0, max: 9_000 }),
  size: fc.integer({ min: 1, max: 30 }),
});

const byTime = <G extends { window: number; offset: number }>(groups: G[]) =>
  [...groups].sort((a, b) => a.window * BURST_WINDOW_MS + a.offset - (b.window * BURST_WINDOW_MS + b.offset));

const decided = (d: RateLimitDecision) => ({
  allowed: d.allowed,
  refusedBy: d.refusedBy,
  retryAfter: d.retryAfter,
  headers: d.headers,
});

describe("held numbers", () => {
  it("hands out the claimed numbers in order, whatever the order the claims came back in", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const ranges: [number, number][] = [];
        let next = 1;
        for (const size of sizes) {
          ranges.push([next, next + size - 1]);
          next += size;
        }
        const held = new HeldNumbers();
        for (const [first, last] of [...ranges].reverse()) held.add(first, last);
        const taken: number[] = [];
        while (held.count > 0) taken.push(held.take());
        expect(taken).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1));
      }),
    );
  });

  it("claims ahead only below half of every limit, at most the lease's reach, never before a count is known", () => {
    expect(claimAhead(3, [{ known: undefined, limit: 1_000 }])).toBe(0);
    expect(claimAhead(3, [{ known: 10, limit: 1_000_000 }])).toBe(FIRST_AHEAD);
    expect(claimAhead(3, [{ known: 10, limit: 1_000_000 }], MAX_AHEAD)).toBe(MAX_AHEAD);
    expect(claimAhead(3, [{ known: 10, limit: 1_000 }], MAX_AHEAD)).toBe(500 - 13);
    expect(claimAhead(3, [{ known: 40, limit: 100 }])).toBe(7);
    expect(claimAhead(3, [{ known: 48, limit: 100 }])).toBe(0);
    expect(
      claimAhead(1, [
        { known: 1, limit: 1_000 },
        { known: 90, limit: 200 },
      ]),
    ).toBe(9);
  });
});

describe("claiming ahead", () => {
  it("below half the limits, requests one after another are decided at once, a claim per FIRST_AHEAD or so", async () => {
    let statements = 0;
    const store = new DatabaseCounterStore((text, values) => {
      statements += 1;
      return counterQuery(text, values);
    });
    const subject = `app:${uniqueSuffix()}|location:ahead`;
    const limits = { burst: 10_000, daily: 100_000 };
    let atOnce = 0;
    for (let i = 0; i < 300; i++) {
      const decision = hitRateLimit(subject, { now: new Date(t0 + i), limits, store });
      if (!(decision instanceof Promise)) atOnce += 1;
      const { allowed, headers } = await decision;
      expect(allowed).toBe(true);
      expect(headers["x-ratelimit-remaining"]).toBe(String(10_000 - 1 - i));
      expect(headers["x-ratelimit-daily-remaining"]).toBe(String(100_000 - 1 - i));
    }
    expect(atOnce).toBeGreaterThan(280);
    expect(statements).toBeLessThan(20);
  });
});

describe("a subject busier than one claim's round trip", () => {
  it("claims further ahead each time its numbers ran out, until a whole wave of requests is decided at once", async () => {
    let statements = 0;
    let out = 0;
    const store = new DatabaseCounterStore(async (text, values) => {
      statements += 1;
      out += 1;
      try {
        return await counterQuery(text, values);
      } finally {
        out -= 1;
      }
    });
    const subject = `app:${uniqueSuffix()}|location:flood`;
    const limits = { burst: 1_000_000, daily: 10_000_000 };
    const atOnce: number[] = [];
    let hits = 0;
    for (let wave = 0; wave < 8; wave++) {
      // 300 requests in one turn of the event loop, as many connections' requests arrive together.
      const decisions = Array.from({ length: 300 }, () =>
        hitRateLimit(subject, { now: new Date(t0 + hits++), limits, store }),
      );
      atOnce.push(decisions.filter((d) => !(d instanceof Promise)).length);
      const decided = await Promise.all(decisions);
      // The next connections' requests come a moment later: a claim sent during the wave is back.
      await waitFor(() => out === 0);
      expect(decided.every((d) => d.allowed)).toBe(true);
      // Numbered in arrival order, as single increments would be.
      expect(decided.at(-1)?.headers["x-ratelimit-remaining"]).toBe(String(limits.burst - hits));
    }
    // With a fixed reach of FIRST_AHEAD, at most that many of each wave would be decided at once.
    expect(atOnce[0]).toBe(0);
    expect(atOnce.at(-1)).toBe(300);
    expect(statements).toBeLessThan(16);
  });
});

describe("one instance decides as single increments would", () => {
  it("property: any limits and any requests arriving together, in one or more windows: the decisions and headers of one counter counting each request in turn", async () => {
    const limits = fc
      .record({ burst: fc.integer({ min: 0, max: 40 }), daily: fc.integer({ min: 0, max: 90 }) })
      .filter((l) => l.burst > 0 || l.daily > 0);
    await fc.assert(
      fc.asyncProperty(limits, fc.array(group, { minLength: 1, maxLength: 6 }), async (limits: RateLimits, groups) => {
        const subject = `app:${uniqueSuffix()}|location:lease`;
        const store = new DatabaseCounterStore(slowQuery);
        const model = new MemoryCounterStore();
        for (const { window, offset, size } of byTime(groups)) {
          const times = Array.from({ length: size }, (_, i) => new Date(t0 + window * BURST_WINDOW_MS + offset + i));
          const decisions = await Promise.all(times.map((now) => hitRateLimit(subject, { now, limits, store })));
          const expected = times.map(
            (now) => hitRateLimit(subject, { now, limits, store: model }) as RateLimitDecision,
          );
          expect(decisions.map(decided)).toEqual(expected.map(decided));
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("instances sharing the counters", () => {
  it("property: never more through than the limits, and a window refuses early at most what the other instance claimed ahead (below half the limit, at most MAX_AHEAD)", async () => {
    const limits = fc.record({ burst: fc.integer({ min: 1, max: 300 }), daily: fc.integer({ min: 1, max: 600 }) });
    const spread = fc.array(fc.record({ window: group, stores: fc.array(fc.boolean(), { maxLength: 60 }) }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(limits, spread, async (limits: RateLimits, groups) => {
        const subject = `app:${uniqueSuffix()}|location:shared`;
        const instances = [new DatabaseCounterStore(slowQuery), new DatabaseCounterStore(slowQuery)];
        const perWindow = new Map<number, { hits: number; allowed: number; refusedByDay: number }>();
        let allowedToday = 0;
        const sorted = [...groups].sort(
          (a, b) =>
            a.window.window * BURST_WINDOW_MS + a.window.offset - (b.window.window * BURST_WINDOW_MS + b.window.offset),
        );
        for (const { window: g, stores } of sorted) {
          const decisions = await Promise.all(
            stores.map((second, i) =>
              hitRateLimit(subject, {
                now: new Date(t0 + g.window * BURST_WINDOW_MS + g.offset + i),
                limits,
                store: instances[second ? 1 : 0],
              }),
            ),
          );
          const tally = perWindow.get(g.window) ?? { hits: 0, allowed: 0, refusedByDay: 0 };
          tally.hits += decisions.length;
          tally.allowed += decisions.filter((d) => d.allowed).length;
          tally.refusedByDay += decisions.filter((d) => d.refusedBy === "daily").length;
          perWindow.set(g.window, tally);
          allowedToday += decisions.filter((d) => d.allowed).length;
        }
        expect(allowedToday).toBeLessThanOrEqual(limits.daily);
        for (const { hits, allowed, refusedByDay } of perWindow.values()) {
          expect(allowed).toBeLessThanOrEqual(limits.burst);
          // Refused early only for numbers the other instance claimed and did not use.
          const claimedAhead = Math.min(MAX_AHEAD, Math.floor(limits.burst / 2));
          if (refusedByDay === 0) expect(allowed).toBeGreaterThanOrEqual(Math.min(hits, limits.burst) - claimedAhead);
        }
      }),
      { numRuns: 30 },
    );
  });
});
