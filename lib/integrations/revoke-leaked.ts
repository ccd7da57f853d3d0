import { recordAudit } from "@/lib/accounts/audit";
import { db } from "@/lib/db/client";
import { revokeLiveReported } from "@/lib/db/revoke-live";
import { tokenIsLive } from "./views";

/**
 * A private integration whose token was reported as leaked (SPEC.md › leaked tokens): it becomes
 * `Revoked` with the reason and the time, every token of it is refused at once (the token rows'
 * trigger sends `NOTIFY token_state`, so other instances empty their read cache too, as for
 * Delete), and only `Rotate and expire this token now` brings it back with a new token.
 */

/** An integration revoked by a report: ids and names only, never a token or its hash. */
export interface RevokedIntegration {
  integrationId: string;
  companyId: string;
  locationId: string | null;
  name: string;
  /** `pit-…abcd` of the reported token. */
  tokenHint: string;
  /** The keyed hash the report matched, so the caller can tell which of its tokens were live. */
  tokenHash: string;
}

/**
 * Revokes the integrations of the live tokens among `tokenHashes` (keyed hashes, lib/crypto).
 * A token that no longer works (rotated out, expired, already revoked) changes nothing. Each
 * revocation (the `revoke` step below, run for each live token by lib/db/revoke-live.ts) locks the
 * integration row, as every lifecycle change does, and writes its audit entry in the same
 * transaction (no person: `actorUserId` null; the reason says who reported it).
 */
export function revokeLeakedIntegrationTokens(
  tokenHashes: readonly string[],
  reason: string,
  now: Date,
): Promise<RevokedIntegration[]> {
  return revokeLiveReported(tokenHashes, {
    find: (hashes) =>
      db().privateIntegrationToken.findMany({
        where: { tokenHash: { in: hashes } },
        select: {
          tokenHash: true,
          hint: true,
          slot: true,
          expiresAt: true,
          revokedAt: true,
          integration: { select: { id: true, expiresAt: true, revokedAt: true } },
        },
      }),
    isLive: (t) =>
      tokenIsLive(t, now) &&
      t.integration.revokedAt === null &&
      (t.integration.expiresAt === null || t.integration.expiresAt.getTime() > now.getTime()),
    revoke: async (tx, token) => {
      const locked = await tx.$queryRaw<
        { id: string; companyId: string; locationId: string | null; name: string; revokedAt: Date | null }[]
      >`SELECT id, "companyId", "locationId", name, "revokedAt" FROM "PrivateIntegration"
        WHERE id = ${token.integration.id} FOR UPDATE`;
      const row = locked[0];
      // Deleted or revoked meanwhile (two reports of one leak): nothing left to do.
      if (!row || row.revokedAt !== null) return undefined;
      const tokens = await tx.privateIntegrationToken.updateMany({
        where: { integrationId: row.id, slot: { not: null } },
        data: { slot: null, revokedAt: now },
      });
      if (tokens.count === 0) return undefined;
      await tx.privateIntegration.update({ where: { id: row.id }, data: { revokedAt: now, revokedReason: reason } });
      await recordAudit(tx, {
        companyId: row.companyId,
        locationId: row.locationId,
        actorUserId: null,
        action: "private_integration_revoked_as_leaked",
        targetId: row.id,
        details: { name: row.name, tokenHint: token.hint, reason, tokensRevoked: tokens.count },
      });
      return {
        integrationId: row.id,
        companyId: row.companyId,
        locationId: row.locationId,
        name: row.name,
        tokenHint: token.hint,
        tokenHash: token.tokenHash,
      };
    },
  });
}
