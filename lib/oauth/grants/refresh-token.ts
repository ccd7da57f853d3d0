import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import type { UserType } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { invalidGrant, invalidRequest } from "../errors";
import type { GrantContext } from "./authorization-code";
import {
  type AgencyInstallChoice,
  GRANT_TRANSACTION_OPTIONS,
  type GrantForIssue,
  issueTokens,
  tokenResponse,
  tokenScopes,
} from "./issue";
import { revokeGrants } from "./revoke-grants";
import { parseUserType } from "./user-type";

/**
 * grant_type=refresh_token (RFC 6749 §6). Refresh tokens are single-use and rotate: the one
 * presented is consumed in the transaction that issues its successor. Presenting a consumed one
 * means it leaked or was replayed, so its whole family (the grant and the Location grants
 * exchanged from it) is revoked (OAuth 2.0 Security BCP §4.14.2) — unless its own client presents
 * it again within REFRESH_TOKEN_REUSE_SECONDS of its first use (SPEC.md): that is a retry after a
 * lost response or a second process of the app, and it gets another pair of the same family
 * (Okta's "grace period for token rotation", Auth0's "reuse interval").
 */

function checkParams(form: Record<string, string>) {
  const token = form.refresh_token;
  if (!token) throw invalidRequest("refresh_token is required: send the refresh_token of your last token response.");
  return { token, userType: parseUserType(form.user_type, { required: false }) };
}

interface RefreshRow {
  id: string;
  grantId: string;
  expiresAt: Date;
  consumedAt: Date | null;
  grant: GrantForIssue & {
    appId: string;
    revokedAt: Date | null;
    installation: { status: string; versionId: string; scopes: string[] };
  };
  /** The sub-accounts chosen at the agency install (the Company token response lists them). */
  approvedLocations: string[];
  choice: AgencyInstallChoice;
}

interface RefreshLookupRow {
  id: string;
  grantId: string;
  expiresAt: Date;
  consumedAt: Date | null;
  appId: string;
  userType: UserType;
  companyId: string;
  locationId: string | null;
  userId: string;
  scopes: string[];
  revokedAt: Date | null;
  installationStatus: string;
  versionId: string;
  installationScopes: string[];
  approvedLocations: string[];
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
}

/** The refresh token with its grant and installation: one statement (the query builder took four). */
async function findRefreshToken(token: string): Promise<RefreshRow | undefined> {
  if (token.length > 200) return undefined;
  const rows = await db().$queryRaw<RefreshLookupRow[]>`
    SELECT r.id, r."grantId", r."expiresAt", r."consumedAt",
           g."appId", g."userType"::text AS "userType", g."companyId", g."locationId", g."userId", g.scopes,
           g."revokedAt",
           i.status::text AS "installationStatus", i."versionId", i.scopes AS "installationScopes",
           i."approveAllLocations", i."installToFutureLocations",
           ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                 WHERE l."installationId" = i.id ORDER BY l."locationId") AS "approvedLocations"
    FROM "RefreshToken" r
    JOIN "TokenGrant" g ON g.id = r."grantId"
    JOIN "Installation" i ON i.id = g."installationId"
    WHERE r."tokenHash" = ${hashSecret(token)}`;
  const row = rows[0];
  if (!row) return undefined;
  const date = (value: Date | null) => (value === null ? null : new Date(value));
  return {
    id: row.id,
    grantId: row.grantId,
    expiresAt: new Date(row.expiresAt),
    consumedAt: date(row.consumedAt),
    grant: {
      id: row.grantId,
      appId: row.appId,
      userType: row.userType,
      companyId: row.companyId,
      locationId: row.locationId,
      userId: row.userId,
      scopes: row.scopes,
      revokedAt: date(row.revokedAt),
      installation: { status: row.installationStatus, versionId: row.versionId, scopes: row.installationScopes },
    },
    approvedLocations: row.approvedLocations,
    choice: { approveAllLocations: row.approveAllLocations, installToFutureLocations: row.installToFutureLocations },
  };
}

async function revokeFamily(row: RefreshRow, now: Date): Promise<void> {
  const revoked = await changeCachedState(() => db().$transaction((tx) => revokeGrants(tx, { id: row.grantId }, now)));
  log.warn("refresh token reused; revoked its family", { grantId: row.grantId, grants: revoked.length });
}

function reused(): Error {
  return invalidGrant(
    "This refresh token was already used, so all tokens of its family have been revoked. Install the app again to get new tokens.",
    "refresh token reuse",
  );
}

function revoked(): Error {
  return invalidGrant("The refresh token has been revoked. Install the app again to get new tokens.");
}

function checkClient(row: RefreshRow, ctx: GrantContext) {
  if (row.grant.appId !== ctx.client.app.id) {
    throw invalidGrant("This refresh token was issued to another app.", "refresh token of another client");
  }
}

/**
 * Whether a refresh token first used at `firstUsedAt` may be presented again at `now`: strictly
 * less than `windowSeconds` later. `0` turns the window off. An instance whose clock is behind the
 * one that recorded the first use sees a negative age, which is inside the window too.
 */
export function insideReuseWindow(firstUsedAt: Date, now: Date, windowSeconds: number): boolean {
  if (windowSeconds <= 0) return false;
  return now.getTime() - firstUsedAt.getTime() < windowSeconds * 1000;
}

/** A used token outside the window is reuse: revoke the family, even when the token has expired since. */
async function checkNotReused(row: RefreshRow, now: Date, windowSeconds: number) {
  if (row.consumedAt && !insideReuseWindow(row.consumedAt, now, windowSeconds)) {
    await revokeFamily(row, now);
    throw reused();
  }
}

function checkExpiry(row: RefreshRow, now: Date) {
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw invalidGrant("The refresh token has expired (they last 365 days). Install the app again to get new tokens.");
  }
}

function checkNotRevoked(row: RefreshRow) {
  if (row.grant.revokedAt) throw revoked();
  if (row.grant.installation.status !== "installed") {
    throw invalidGrant("The app has been uninstalled. Install it again to get new tokens.");
  }
}

function checkUserType(row: RefreshRow, userType: string | undefined) {
  if (userType !== undefined && userType !== row.grant.userType) {
    throw invalidGrant(`user_type must be ${row.grant.userType} for this refresh token, or left out.`);
  }
}

type Redemption =
  | { kind: "issued"; body: Record<string, unknown>; replayAgeMs?: number }
  | { kind: "revoked" }
  | { kind: "reused" };

/**
 * Consumes the refresh token and issues its successor, in one transaction whose statements decide
 * every race (no decision rests on the read made before it):
 * - the family is locked FOR SHARE while alive: a revocation (reuse, RFC 7009, uninstall) that
 *   committed first is seen and refused; one that comes later waits for this commit and then
 *   revokes what it issued too. Refreshes of one family share the lock and do not wait on each other.
 * - single use is the conditional UPDATE's row count. When it is 0 the token was used before, maybe
 *   by another instance a moment ago: the UPDATE waited for that commit, so the next statement
 *   reads the first use, and inside the window this is a replay that gets a pair of its own.
 */
async function redeem(row: RefreshRow, ctx: GrantContext, windowSeconds: number): Promise<Redemption> {
  const { now } = ctx;
  const { grant } = row;
  const key = await activeSigningKey();
  return db().$transaction(async (tx): Promise<Redemption> => {
    const alive = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "TokenGrant" WHERE id = ${grant.id} AND "revokedAt" IS NULL FOR SHARE`;
    if (alive.length === 0) return { kind: "revoked" };
    const consumed = await tx.refreshToken.updateMany({
      where: { id: row.id, consumedAt: null },
      data: { consumedAt: now },
    });
    let replayAgeMs: number | undefined;
    if (consumed.count !== 1) {
      const used = await tx.refreshToken.findUnique({ where: { id: row.id }, select: { consumedAt: true } });
      if (!used?.consumedAt || !insideReuseWindow(used.consumedAt, now, windowSeconds)) return { kind: "reused" };
      replayAgeMs = now.getTime() - used.consumedAt.getTime();
    }
    const issued = await issueTokens(tx, {
      grant,
      clientId: ctx.client.app.clientId,
      versionId: grant.installation.versionId,
      // Never more than the installation grants now (a re-install may have narrowed it).
      scopes: tokenScopes(grant.userType, grant.scopes, grant.installation.scopes),
      key,
      now,
    });
    return { kind: "issued", body: tokenResponse(issued, grant, row.approvedLocations, row.choice), replayAgeMs };
  }, GRANT_TRANSACTION_OPTIONS);
}

export async function refreshTokenGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const windowSeconds = env().REFRESH_TOKEN_REUSE_SECONDS;
  const params = checkParams(ctx.form);
  const row = await findRefreshToken(params.token);
  if (!row) throw invalidGrant("The refresh token is not valid. Send the refresh_token exactly as you received it.");
  checkClient(row, ctx);
  await checkNotReused(row, now, windowSeconds);
  checkExpiry(row, now);
  checkNotRevoked(row);
  checkUserType(row, params.userType);

  const outcome = await redeem(row, ctx, windowSeconds);
  if (outcome.kind === "revoked") throw revoked();
  if (outcome.kind === "reused") {
    // Used by another request between our read and our update, outside the window: reuse all the same.
    await revokeFamily(row, now);
    throw reused();
  }
  if (outcome.replayAgeMs !== undefined) {
    log.info("refresh token presented again inside the reuse window; issued another pair of its family", {
      grantId: row.grantId,
      replayAgeMs: outcome.replayAgeMs,
    });
  }
  return outcome.body;
}
