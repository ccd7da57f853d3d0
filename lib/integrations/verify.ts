import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { cachedRead } from "@/lib/db/read-cache";
import { describeError, log } from "@/lib/log";
import { scopesAtLevel } from "@/lib/scopes";
import type { VerifyResult } from "@/lib/tokens/principal";
import { isPrivateIntegrationToken } from "./token";

/** lastUsedAt is written at most this often per token. */
export const LAST_USED_INTERVAL_MS = 60_000;

interface TokenLookupRow {
  id: string;
  slot: "current" | "previous" | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  integrationId: string;
  companyId: string;
  locationId: string | null;
  scopes: string[];
}

/**
 * Checks `Authorization: Bearer pit-…`: one query by the unique keyed hash (joined to its
 * integration), then slot, revocation and expiry against `now`. Labs being off does not stop
 * existing tokens. The scopes are the integration's current ones, so an edit applies at once.
 */
export async function verifyPrivateIntegrationToken(token: string, now: Date = new Date()): Promise<VerifyResult> {
  if (!isPrivateIntegrationToken(token)) return { ok: false, reason: "malformed" };
  const tokenHash = hashSecret(token);
  // A live token's row may come from the verification cache (emptied by every revocation).
  const row = await cachedRead(
    `pit:${tokenHash}`,
    () => lookupToken(tokenHash),
    (found) => found !== undefined && found.revokedAt === null && found.slot !== null,
  );
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revokedAt !== null || row.slot === null) return { ok: false, reason: "revoked" };
  const expiresAt = row.expiresAt === null ? null : new Date(row.expiresAt);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };
  touchLastUsed(row.id, row.lastUsedAt === null ? null : new Date(row.lastUsedAt), now);
  const level = row.locationId ? "location" : "agency";
  return {
    ok: true,
    principal: {
      kind: "private_integration",
      authClass: row.locationId ? "Location" : "Company",
      companyId: row.companyId,
      ...(row.locationId ? { locationId: row.locationId } : {}),
      scopes: scopesAtLevel(row.scopes, level),
      integrationId: row.integrationId,
      tokenId: row.id,
      ...(expiresAt ? { expiresAt } : {}),
    },
  };
}

async function lookupToken(tokenHash: string): Promise<TokenLookupRow | undefined> {
  const rows = await db().$queryRaw<TokenLookupRow[]>`
    SELECT t.id, t.slot::text AS slot, t."expiresAt", t."revokedAt", t."lastUsedAt",
           i.id AS "integrationId", i."companyId", i."locationId", i.scopes
    FROM "PrivateIntegrationToken" t
    JOIN "PrivateIntegration" i ON i.id = t."integrationId"
    WHERE t."tokenHash" = ${tokenHash}`;
  return rows[0];
}

// Tokens whose lastUsedAt this process is writing or wrote recently, so a burst of requests in one
// minute costs one write. The conditional update keeps it to one a minute across instances too.
const recentWrites = new Map<string, number>();
const pendingWrites = new Set<Promise<unknown>>();
const MAX_REMEMBERED = 10_000;

function touchLastUsed(tokenId: string, lastUsedAt: Date | null, now: Date): void {
  const at = now.getTime();
  if (lastUsedAt && at - lastUsedAt.getTime() < LAST_USED_INTERVAL_MS) return;
  const written = recentWrites.get(tokenId);
  if (written !== undefined && at - written < LAST_USED_INTERVAL_MS && at >= written) return;
  if (recentWrites.size >= MAX_REMEMBERED) recentWrites.clear();
  recentWrites.set(tokenId, at);
  // Fire and forget: the request never waits for this write, and a failure only logs.
  const write = db()
    .privateIntegrationToken.updateMany({
      where: {
        id: tokenId,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(at - LAST_USED_INTERVAL_MS) } }],
      },
      data: { lastUsedAt: now },
    })
    .catch((error: unknown) => {
      log.warn("private integration lastUsedAt not written", { row: tokenId, error: describeError(error) });
    })
    .finally(() => pendingWrites.delete(write));
  pendingWrites.add(write);
}

/** Waits for lastUsedAt writes in flight (tests, graceful shutdown). */
export async function flushLastUsedWrites(): Promise<void> {
  while (pendingWrites.size) await Promise.all([...pendingWrites]);
}
