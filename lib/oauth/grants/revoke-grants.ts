import type { Tx } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

/**
 * Revokes the grants matching `where` and every Location grant exchanged from them
 * (/oauth/locationToken), so each access and refresh token they issued fails at once.
 * Returns the ids revoked.
 *
 * The roots are revoked first, by an UPDATE that takes their row locks: an exchange that holds
 * one of them (FOR SHARE, lib/oauth/location-token.ts) commits its child grant before this
 * statement goes on, and the children are then read by a later statement, which sees it (READ
 * COMMITTED). An exchange that comes after finds its parent revoked and refuses. Children of roots
 * revoked earlier are revoked too, so none outlives its parent whichever way it was revoked.
 */
export async function revokeGrants(tx: Tx, where: Prisma.TokenGrantWhereInput, now: Date): Promise<string[]> {
  const revokedRoots = await tx.tokenGrant.updateManyAndReturn({
    where: { ...where, revokedAt: null },
    data: { revokedAt: now },
    select: { id: true },
  });
  // Only grants issued from a code have children; revoked or not, theirs go too.
  const parents = await tx.tokenGrant.findMany({
    where: { AND: [where, { parentGrantId: null }] },
    select: { id: true },
  });
  const children = parents.length
    ? await tx.tokenGrant.updateManyAndReturn({
        where: { parentGrantId: { in: parents.map((g) => g.id) }, revokedAt: null },
        data: { revokedAt: now },
        select: { id: true },
      })
    : [];
  return [...revokedRoots, ...children].map((g) => g.id);
}
