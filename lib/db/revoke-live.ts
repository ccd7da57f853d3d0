import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";

/**
 * The frame both kinds of leaked credential share (lib/integrations/revoke-leaked.ts,
 * lib/oauth/revoke-leaked.ts): one query for every reported hash, found or not, so the work before
 * any write is the same; then each live token revoked in its own transaction that changes cached
 * state. `revoke` returns what it did, or undefined when nothing was left (two reports of one leak).
 */
export async function revokeLiveReported<Token, Revoked>(
  tokenHashes: readonly string[],
  steps: {
    find: (tokenHashes: string[]) => Promise<Token[]>;
    isLive: (token: Token) => boolean;
    revoke: (tx: Tx, token: Token) => Promise<Revoked | undefined>;
  },
): Promise<Revoked[]> {
  if (tokenHashes.length === 0) return [];
  const found = await steps.find([...tokenHashes]);
  const revoked: Revoked[] = [];
  for (const token of found.filter(steps.isLive)) {
    const done = await changeCachedState(() => db().$transaction((tx) => steps.revoke(tx, token)));
    if (done !== undefined) revoked.push(done);
  }
  return revoked;
}
