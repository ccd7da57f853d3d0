import { clientAddress, unknownAddress } from "@/lib/client-address";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { runHotStatement } from "@/lib/db/hot-statement";
import { cachedRead, cacheKey, peekCachedRead } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { scopesAtLevel } from "@/lib/scopes";
import type { Principal, VerifyResult } from "@/lib/tokens/principal";
import { type HeldEntry, type HeldStatus, statusCatalog } from "./catalog";
import { addressNotAllowedDescription, expiredIntegrationDescription } from "./guard-rails";
import { isAddressAllowed } from "./ip-allowlist";
import { heldStatusSql } from "./rows";
import { isPrivateIntegrationToken } from "./token";

/** lastUsedAt is written at most this often per token. */
export const LAST_USED_INTERVAL_MS = 60_000;

interface TokenLookupRow {
  id: string;
  slot: "current" | "previous" | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Set on the previous token: when its rotation began. */
  rotatedOutAt: Date | null;
  integrationId: string;
  companyId: string;
  locationId: string | null;
  scopes: string[];
  /** The status a column of the integration holds it in (./catalog.ts), whose refusal every token gets. */
  heldAs: HeldStatus | null;
  /** The guard rails (lib/integrations/guard-rails.ts), cached with the row. */
  integrationExpiresAt: Date | null;
  allowedIpAddresses: string[];
  /** Null: all sub-accounts (and every sub-account integration). */
  allowedLocationIds: string[] | null;
}

/** What the request says about its caller, for the guard rails. */
export interface VerificationContext {
  /** `clientAddress(headers, TRUSTED_PROXY_HOPS)`: the peer, or `unknown`. */
  clientAddress: string;
}

/** The context of a request: its client address as lib/client-address.ts reads it. */
export function verificationContext(headers: Headers): VerificationContext {
  return { clientAddress: clientAddress(headers, env().TRUSTED_PROXY_HOPS) };
}

/**
 * Checks `Authorization: Bearer pit-…`: one query by the unique keyed hash (joined to its
 * integration), then a status the integration is held in (./catalog.ts `held`: its code and
 * words, whatever the token's own state), slot, revocation and expiry against `now`. Labs being off does not stop
 * existing tokens. The scopes are the integration's current ones, so an edit applies at once.
 * Then the integration's guard rails: its `Expires` (401 naming the date) and `Allowed IP
 * addresses` against `context.clientAddress` (403; without a context the address is unknown, which
 * no allowlist allows). Chosen `Sub-accounts` travel in the principal (`allowedLocationIds`).
 */
export async function verifyPrivateIntegrationToken(
  token: string,
  now: Date = new Date(),
  context?: VerificationContext,
): Promise<VerifyResult> {
  return checkPrivateIntegrationToken(token, now, context);
}

/**
 * verifyPrivateIntegrationToken, answering at once when the token's row is in the read cache (the
 * API's hot path then waits for no promise); otherwise a promise of the same answer.
 */
export function checkPrivateIntegrationToken(
  token: string,
  now: Date,
  context?: VerificationContext,
): VerifyResult | Promise<VerifyResult> {
  if (!isPrivateIntegrationToken(token)) return { ok: false, reason: "malformed" };
  const key = cacheKey("pit", token);
  // A live token's row may come from the verification cache (emptied by every revocation); the
  // keyed hash the database looks it up by is made only when it does not.
  const cached = peekCachedRead<TokenLookupRow | undefined>(key);
  if (cached) return decide(cached.value, now, context);
  return cachedRead(key, () => lookupToken(hashSecret(token)), isLive).then((row) => decide(row, now, context));
}

function isLive(found: TokenLookupRow | undefined): boolean {
  return found !== undefined && found.revokedAt === null && found.slot !== null;
}

/** The rules, against the token's row (or its absence). */
function decide(row: TokenLookupRow | undefined, now: Date, context: VerificationContext | undefined): VerifyResult {
  if (!row) return { ok: false, reason: "unknown" };
  // The integration is known from here on: its usage counts these refusals too.
  const integrationId = row.integrationId;
  // A held status first: its words say why every token of it stops (reported as leaked, say),
  // where the token's own revocation could only say it was rotated out.
  if (row.heldAs !== null) {
    const { refusal }: HeldEntry = statusCatalog[row.heldAs].held;
    return { ok: false, reason: "refused", refusal, integrationId };
  }
  if (row.revokedAt !== null || row.slot === null) return { ok: false, reason: "revoked", integrationId };
  const expiresAt = row.expiresAt === null ? null : new Date(row.expiresAt);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired", integrationId };
  const integrationExpiresAt = row.integrationExpiresAt === null ? null : new Date(row.integrationExpiresAt);
  if (integrationExpiresAt && integrationExpiresAt.getTime() <= now.getTime()) {
    const description = expiredIntegrationDescription(integrationExpiresAt);
    return { ok: false, reason: "refused", refusal: { code: "invalid_token", description }, integrationId };
  }
  const address = context?.clientAddress ?? unknownAddress;
  if (!isAddressAllowed(address, row.allowedIpAddresses)) {
    log.info("private integration refused by its Allowed IP addresses", { row: row.integrationId });
    const description = addressNotAllowedDescription(address);
    return { ok: false, reason: "refused", refusal: { code: "forbidden", description }, integrationId };
  }
  touchLastUsed(
    row.id,
    row.lastUsedAt === null ? null : timeOf(row.lastUsedAt),
    row.rotatedOutAt === null ? null : timeOf(row.rotatedOutAt),
    now,
    context?.clientAddress ?? null,
  );
  return { ok: true, principal: grantedBy(row, expiresAt, integrationExpiresAt) };
}

/**
 * The principal a live row grants, worked out once per row: the read cache hands every request
 * the same row object while it holds it. Each request gets its own copy (its arrays included).
 */
const granted = new WeakMap<TokenLookupRow, Principal>();

function grantedBy(row: TokenLookupRow, expiresAt: Date | null, integrationExpiresAt: Date | null): Principal {
  let known = granted.get(row);
  if (!known) {
    const level = row.locationId ? "location" : "agency";
    // The token ends with the rotation's overlap or the integration's Expires, whichever comes first.
    const stopsAt = earliest(expiresAt, integrationExpiresAt);
    known = {
      kind: "private_integration",
      authClass: row.locationId ? "Location" : "Company",
      companyId: row.companyId,
      ...(row.locationId ? { locationId: row.locationId } : {}),
      scopes: scopesAtLevel(row.scopes, level),
      integrationId: row.integrationId,
      tokenId: row.id,
      ...(stopsAt ? { expiresAt: stopsAt } : {}),
      ...(row.allowedLocationIds && !row.locationId ? { allowedLocationIds: [...row.allowedLocationIds] } : {}),
    };
    granted.set(row, known);
  }
  return known.allowedLocationIds
    ? { ...known, scopes: [...known.scopes], allowedLocationIds: [...known.allowedLocationIds] }
    : { ...known, scopes: [...known.scopes] };
}

function earliest(a: Date | null, b: Date | null): Date | undefined {
  if (!a || !b) return a ?? b ?? undefined;
  return a.getTime() <= b.getTime() ? a : b;
}

/** The integration's held status, in the lookup's SQL. */
const HELD_AS = heldStatusSql("i").sql;

/** Past Prisma's runtime on PostgreSQL (lib/db/hot-statement.ts): it runs on a cache miss of each request. */
export async function lookupToken(tokenHash: string): Promise<TokenLookupRow | undefined> {
  const rows = await runHotStatement<TokenLookupRow>(
    `SELECT t.id, t.slot::text AS slot, t."expiresAt", t."revokedAt", t."lastUsedAt", t."rotatedOutAt",
           i.id AS "integrationId", i."companyId", i."locationId", i.scopes, ${HELD_AS} AS "heldAs",
           i."expiresAt" AS "integrationExpiresAt",
           COALESCE(i."allowedIpAddresses", ARRAY[]::text[]) AS "allowedIpAddresses",
           CASE WHEN i."allSubAccounts" THEN NULL ELSE ARRAY(
             SELECT c."locationId" FROM "PrivateIntegrationLocation" c WHERE c."integrationId" = i.id ORDER BY 1
           ) END AS "allowedLocationIds"
    FROM "PrivateIntegrationToken" t
    JOIN "PrivateIntegration" i ON i.id = t."integrationId"
    WHERE t."tokenHash" = $1`,
    [tokenHash],
  );
  return rows[0];
}

// Tokens whose lastUsedAt this process is writing or wrote recently, so a burst of requests in one
// minute costs one write. The conditional update keeps it to one a minute across instances too.
const recentWrites = new Map<string, number>();
const pendingWrites = new Set<Promise<unknown>>();
const MAX_REMEMBERED = 10_000;

/** A row's time in ms, as `new Date(value).getTime()` gives it, without making a Date when it is one. */
function timeOf(value: Date | string | number): number {
  return value instanceof Date ? value.getTime() : new Date(value).getTime();
}

/**
 * `lastUsedAt`, `rotatedOutAt`: the row's, in ms. The first use of an old token after its rotation
 * began is written at once, whatever the minute: the screens say whether it was used since.
 */
function touchLastUsed(
  tokenId: string,
  lastUsedAt: number | null,
  rotatedOutAt: number | null,
  now: Date,
  address: string | null,
): void {
  const at = now.getTime();
  const written = recentWrites.get(tokenId);
  const firstSinceRotation =
    rotatedOutAt !== null &&
    at >= rotatedOutAt &&
    (lastUsedAt === null || lastUsedAt < rotatedOutAt) &&
    (written === undefined || written < rotatedOutAt);
  if (!firstSinceRotation) {
    if (lastUsedAt !== null && at - lastUsedAt < LAST_USED_INTERVAL_MS) return;
    if (written !== undefined && at - written < LAST_USED_INTERVAL_MS && at >= written) return;
  }
  if (recentWrites.size >= MAX_REMEMBERED) recentWrites.clear();
  recentWrites.set(tokenId, at);
  // Fire and forget: the request never waits for this write, and a failure only logs.
  const write = db()
    .privateIntegrationToken.updateMany({
      where: {
        id: tokenId,
        OR: [
          { lastUsedAt: null },
          { lastUsedAt: { lte: new Date(at - LAST_USED_INTERVAL_MS) } },
          ...(firstSinceRotation ? [{ lastUsedAt: { lt: new Date(rotatedOutAt ?? 0) } }] : []),
        ],
      },
      // The address of the request that wrote lastUsedAt (null when the caller gave no context).
      data: { lastUsedAt: now, lastUsedAddress: address },
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
