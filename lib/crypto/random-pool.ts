import { randomFillSync } from "node:crypto";

/**
 * Random bytes handed out from a pool that one CSPRNG call fills: a randomBytes call costs about
 * as much for a token's few bytes as for a pool of them (its fixed cost, and the check Next.js
 * wraps around it), and every grant makes a refresh token and a row id. Each byte is handed out once: the
 * offset only moves forward through a fill, and the pool is filled anew before it is read again.
 * Bytes past what a request needs at the end of a fill are left unused.
 */
export function randomPool(size: number, fill: (buffer: Buffer) => void = randomFillSync): (count: number) => Buffer {
  const pool = Buffer.allocUnsafeSlow(size);
  let offset = size;
  return (count) => {
    if (count > size) {
      const bytes = Buffer.allocUnsafe(count);
      fill(bytes);
      return bytes;
    }
    if (offset + count > size) {
      fill(pool);
      offset = 0;
    }
    // A copy: the caller's bytes stay theirs when the pool is filled again.
    const bytes = Buffer.from(pool.subarray(offset, offset + count));
    offset += count;
    return bytes;
  };
}

/** `count` random bytes from the CSPRNG (node:crypto's randomFillSync), through a 4 KB pool. */
export const pooledRandomBytes = randomPool(4096);
