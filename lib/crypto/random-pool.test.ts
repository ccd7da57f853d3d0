import { describe, expect, it } from "vitest";
import { pooledRandomBytes, randomPool } from "./random-pool";

/** A fill that writes 0, 1, 2, … across calls: distinct values while fewer than 256 bytes are filled. */
function countingFill() {
  let next = 0;
  const fill = (buffer: Buffer) => {
    for (let i = 0; i < buffer.length; i++) buffer[i] = next++;
    fills.push(buffer.length);
  };
  const fills: number[] = [];
  return { fill, fills };
}

describe("the random pool", () => {
  it("never hands out the same bytes twice, across fills", () => {
    const { fill, fills } = countingFill();
    const take = randomPool(16, fill);
    const handed = Array.from({ length: 30 }, () => [...take(5)]);
    // Three requests of 5 bytes a fill of 16; the 16th byte of each fill is left unused.
    expect(fills).toEqual(Array(10).fill(16));
    const all = handed.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(handed[0]).toEqual([0, 1, 2, 3, 4]);
    expect(handed[3]).toEqual([16, 17, 18, 19, 20]);
  });

  it("gives the caller a copy the next fill does not change", () => {
    const { fill } = countingFill();
    const take = randomPool(8, fill);
    const first = take(8);
    take(8);
    expect([...first]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("fills a request larger than the pool on its own", () => {
    const { fill, fills } = countingFill();
    const take = randomPool(8, fill);
    expect([...take(3)]).toEqual([0, 1, 2]);
    expect(take(20)).toHaveLength(20);
    expect([...take(3)]).toEqual([3, 4, 5]);
    expect(fills).toEqual([8, 20]);
  });

  it("hands out the CSPRNG's bytes in the sizes asked", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const bytes = pooledRandomBytes(32);
      expect(bytes).toHaveLength(32);
      seen.add(bytes.toString("hex"));
    }
    expect(seen.size).toBe(1000);
  });
});
