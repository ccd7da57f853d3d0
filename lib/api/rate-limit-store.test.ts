import { describe, expect, it } from "vitest";
import { countersOn } from "./rate-limit-store";

describe("a pooler that refuses the counters' startup options", () => {
  it("counts on the shared pool from then on, with one warning, instead of failing every count", async () => {
    let refusals = 0;
    const refusing = {
      query: async () => {
        refusals++;
        throw new Error("unsupported startup parameter in options: synchronous_commit");
      },
    };
    const shared: unknown[][] = [];
    const pool = {
      query: async (config: { values: unknown[] }) => {
        shared.push(config.values);
        return { rows: [{ n: 1 }] };
      },
    };
    const handle = { countersPool: refusing, pool } as unknown as Parameters<typeof countersOn>[0];
    expect(await countersOn(handle, "SELECT $1::int AS n", [1])).toEqual([{ n: 1 }]);
    expect(await countersOn(handle, "SELECT $1::int AS n", [2])).toEqual([{ n: 1 }]);
    expect(refusals).toBe(1);
    expect(shared).toEqual([[1], [2]]);
  });

  it("still fails a count for any other error (the request is then let through, logged)", async () => {
    const failing = { query: async () => Promise.reject(new Error("connection refused")) };
    const handle = { countersPool: failing, pool: failing } as unknown as Parameters<typeof countersOn>[0];
    await expect(countersOn(handle, "SELECT 1", [])).rejects.toThrow(/connection refused/);
  });
});
