import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageCounter, type UsageQuery } from "./counter";

/** The counter's batches alone, against a query that records what a flush writes (no database). */
describe("batches, whatever happens between them", () => {
  it("property: whatever the order of counts, hours, subjects and flushes (ok or failed), what is written sums to what was counted", async () => {
    const subjects = [
      { type: "integration" as const, id: "a" },
      { type: "integration" as const, id: "b" },
      { type: "installation" as const, id: "a" },
    ];
    const step = fc.oneof(
      fc.record({
        count: fc.constantFrom(0, 1, 2),
        outcome: fc.constantFrom("ok" as const, "refused" as const, "limited" as const),
        hour: fc.constantFrom(0, 1, 2),
      }),
      fc.record({ flush: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const written = new Map<string, number>();
        let failNext = false;
        const query: UsageQuery = async (_text, values) => {
          if (failNext) throw new Error("connection reset");
          const [types, ids, hours, ok, refused, limited] = values as [string[], string[], string[], ...number[][]];
          types.forEach((type, i) => {
            for (const [outcome, counts] of [
              ["ok", ok],
              ["refused", refused],
              ["limited", limited],
            ] as const) {
              const key = `${type}|${ids[i]}|${hours[i]}|${outcome}`;
              written.set(key, (written.get(key) ?? 0) + (counts?.[i] ?? 0));
            }
          });
        };
        const counter = new UsageCounter(query, 3_600_000);
        const counted = new Map<string, number>();
        for (const one of steps) {
          if ("flush" in one) {
            failNext = !one.flush;
            await counter.flush();
            continue;
          }
          const s = subjects[one.count] as (typeof subjects)[number];
          const at = new Date(Date.UTC(2026, 10, 24, one.hour, 30));
          counter.count(s, one.outcome, at);
          const key = `${s.type}|${s.id}|${at.toISOString().slice(0, 13)}:00:00.000Z|${one.outcome}`;
          counted.set(key, (counted.get(key) ?? 0) + 1);
        }
        failNext = false;
        await counter.stop();
        for (const [key, n] of counted) expect(written.get(key), key).toBe(n);
        for (const [key, n] of written) expect(n, key).toBe(counted.get(key) ?? 0);
      }),
      { numRuns: 200 },
    );
  });
});
