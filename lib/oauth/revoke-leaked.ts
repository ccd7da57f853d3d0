import { recordAudit } from "@/lib/accounts/audit";
import { db } from "@/lib/db/client";
import { revokeLiveReported } from "@/lib/db/revoke-live";
import { revokeGrants } from "./grants/revoke-grants";

/**
 * A refresh token reported as leaked (SPEC.md › leaked tokens) takes its family with it, as
 * `/oauth/revoke` and reuse detection do: its grant and the Location grants exchanged from it are
 * revoked (lib/oauth/grants/revoke-grants.ts), so every access and refresh token they issued fails
 * at once here and, through the grant trigger's `NOTIFY token_state`, on every other instance.
 */

/** A family revoked by a report: ids only. */
export interface RevokedFamily {
  grantId: string;
  appId: string;
  companyId: string;
  locationId: string | null;
  /** The keyed hash the report matched. */
  tokenHash: string;
}

/**
 * Revokes the families of the refresh tokens among `tokenHashes` whose family is still alive and
 * which have not expired. A consumed token of a live family counts: whoever holds it holds what the
 * family was derived from, so revoking is the safe answer. Audited without a person (the reason
 * says who reported it), in the revocation's transaction.
 */
export function revokeLeakedRefreshTokens(
  tokenHashes: readonly string[],
  reason: string,
  now: Date,
): Promise<RevokedFamily[]> {
  return revokeLiveReported(tokenHashes, {
    find: (hashes) =>
      db().refreshToken.findMany({
        where: { tokenHash: { in: hashes } },
        select: {
          tokenHash: true,
          expiresAt: true,
          grant: { select: { id: true, appId: true, companyId: true, locationId: true, revokedAt: true } },
        },
      }),
    isLive: (t) => t.grant.revokedAt === null && t.expiresAt.getTime() > now.getTime(),
    revoke: async (tx, { grant, tokenHash }) => {
      const grantIds = await revokeGrants(tx, { id: grant.id }, now);
      if (grantIds.length === 0) return undefined;
      await recordAudit(tx, {
        companyId: grant.companyId,
        locationId: grant.locationId,
        actorUserId: null,
        action: "refresh_token_revoked_as_leaked",
        targetId: grant.id,
        details: { appId: grant.appId, reason, grantsRevoked: grantIds.length },
      });
      return {
        grantId: grant.id,
        appId: grant.appId,
        companyId: grant.companyId,
        locationId: grant.locationId,
        tokenHash,
      };
    },
  });
}
