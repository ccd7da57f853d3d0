import { describe, expect, it, vi } from "vitest";
import { stageTimes } from "@/lib/stage-timing";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import { onPostgres, withOneConnection } from "@/lib/testing/postgres";
import { runHotStatement } from "./hot-statement";
import { runUnnamedOn } from "./prepared";

// The switch is read once, when lib/stage-timing.ts is first imported: set before any import.
vi.hoisted(() => {
  process.env.BENCH_STAGE_TIMING = "1";
});

const counted = (stage: string) => stageTimes()[stage]?.count ?? 0;

describe.runIf(onPostgres())("hot statements with the bench's stage timing on (BENCH_STAGE_TIMING=1)", () => {
  it("answer as they do with it off, named or unnamed, and count the pool's wait and the round trip", async () => {
    await withOneConnection(async (target, pool) => {
      const text = `SELECT $1::int AS n, $2::timestamp(3) AS at, $3::bigint AS big /* ${uniqueSuffix()} */`;
      const at = new Date(Date.UTC(2031, 0, 2));
      const [waits, trips] = [counted("poolWait"), counted("roundTrip")];
      for (const n of [1, 2, 3]) {
        expect(await runHotStatement(text, [n, at, BigInt(n)], target)).toEqual([{ n, at, big: BigInt(n) }]);
      }
      expect([counted("poolWait") - waits, counted("roundTrip") - trips]).toEqual([3, 3]);
      runUnnamedOn(pool);
      expect(await runHotStatement(text, [4, at, 4n], target)).toEqual([{ n: 4, at, big: 4n }]);
    });
  });

  it("a failing statement rejects, and its connection goes back to the pool (or is dropped): the next one runs", async () => {
    await withOneConnection(async (target, pool) => {
      await expect(runHotStatement("SELECT 1 / $1::int AS x", [0], target)).rejects.toThrow(/division by zero/);
      expect(pool.waitingCount).toBe(0);
      expect(await runHotStatement("SELECT $1::int AS one", [1], target)).toEqual([{ one: 1 }]);
    });
  });
});
