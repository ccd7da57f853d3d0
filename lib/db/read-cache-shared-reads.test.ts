import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cachedRead, invalidateReadCache, readCacheStats } from "@/lib/db/read-cache";
import { waitFor } from "@/lib/testing/elsewhere";

/**
 * Requests that miss the same key at once share one database read, and sharing never answers one
 * of them from state older than it could have read itself. The model: each key's row has a
 * version; a change bumps it and notifies (empties the cache), as the triggers do; a read of the
 * database sees the version of the moment it began, the stalest a real read can see.
 */

type Step =
  | { kind: "read"; key: number }
  | { kind: "change"; key: number }
  | { kind: "answer"; which: number }
  | { kind: "fail"; which: number };

const KEYS = 3;
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("read" as const), key: fc.nat(KEYS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("change" as const), key: fc.nat(KEYS - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("answer" as const), which: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail" as const), which: fc.nat(20) }) },
);

interface Pending {
  key: number;
  /** Changes notified before the read began: reads of one key share only within one such span. */
  notified: number;
  /** Ends the read: answered, or failed. */
  settle: (answered: boolean) => void;
}

/** Lets every callback of settled promises run. */
const settleCallbacks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("reads that miss one key at once", () => {
  it("share one database read begun since the last change, and each answers the version it was asked at", async () => {
    // The cache answers only while it listens for changes: start the listener first.
    await waitFor(async () => {
      await cachedRead(
        "shared:warm-up",
        async () => 1,
        () => false,
      );
      return readCacheStats().listening;
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        run += 1;
        invalidateReadCache();
        const versions = Array.from({ length: KEYS }, () => 0);
        let notified = 0;
        let unshared = 0;
        const pending: Pending[] = [];
        const asked: { answer: Promise<{ version: number } | Error>; expected: number }[] = [];
        const read = (key: number) => {
          const load = () => {
            // One read out per key within a span between changes: a second is a read not shared.
            if (pending.some((p) => p.key === key && p.notified === notified)) unshared += 1;
            const version = versions[key] as number;
            return new Promise<{ version: number }>((resolve, reject) => {
              const settle = (answered: boolean) =>
                answered ? resolve({ version }) : reject(new Error("connection lost"));
              pending.push({ key, notified, settle });
            });
          };
          const answer = cachedRead(`shared:${run}:${key}`, load, () => true).then(
            (row) => row,
            (error: Error) => error,
          );
          asked.push({ answer, expected: versions[key] as number });
        };
        const settleOne = (which: number, answered: boolean) => {
          if (pending.length === 0) return;
          const [one] = pending.splice(which % pending.length, 1);
          one?.settle(answered);
        };
        for (const s of steps) {
          if (s.kind === "read") read(s.key);
          else if (s.kind === "change") {
            versions[s.key] = (versions[s.key] as number) + 1;
            notified += 1;
            invalidateReadCache();
          } else settleOne(s.which, s.kind === "answer");
          await settleCallbacks();
        }
        while (pending.length > 0) settleOne(0, true);
        expect(unshared).toBe(0);
        for (const { answer, expected } of asked) {
          const got = await answer;
          // A failed read fails every request that shared it; a later one reads again.
          if (!(got instanceof Error)) expect(got.version).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
