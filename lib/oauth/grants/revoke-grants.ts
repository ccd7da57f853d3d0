import type { Tx } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

/**
 * Revokes the grants matching `where` and every Location grant exchanged from them
 * (/oauth/locationToken), so each access and refresh token they issued fails at once.
 * Returns the ids revoked.
 */
export async function revokeGrants(tx: Tx, where: Prisma.TokenGrantWhereInput, now: Date): Promise<string[]> {
  const roots = await tx.tokenGrant.findMany({ where: { ...where, revokedAt: null }, select: { id: true } });
  const rootIds = roots.map((g) => g.id);
  const children = rootIds.length
    ? await tx.tokenGrant.findMany({ where: { parentGrantId: { in: rootIds }, revokedAt: null }, select: { id: true } })
    : [];
  const ids = [...rootIds, ...children.map((g) => g.id)];
  if (ids.length)
    await tx.tokenGrant.updateMany({ where: { id: { in: ids }, revokedAt: null }, data: { revokedAt: now } });
  return ids;
}
