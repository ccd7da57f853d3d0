import { pooledRandomBytes } from "@/lib/crypto/random-pool";

/**
 * A cuid-shaped row id (`c` and 24 lowercase letters or digits), like those Prisma makes. It has no
 * `-`, which app ids rely on (clientIdFor in lib/apps/registry.ts).
 */
export function newRowId(): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
  let id = "c";
  while (id.length < 25) {
    for (const byte of pooledRandomBytes(32)) {
      // 252 = 7 × 36: dropping the last few byte values keeps every character equally likely.
      if (byte < 252 && id.length < 25) id += alphabet[byte % 36];
    }
  }
  return id;
}
