import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
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
 * exchanged from it) is revoked (OAuth 2.0 Security BCP §4.14.2).
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

function checkClient(row: RefreshRow, ctx: GrantContext) {
  if (row.grant.appId !== ctx.client.app.id) {
    throw invalidGrant("This refresh token was issued to another app.", "refresh token of another client");
  }
}

async function checkNotConsumed(row: RefreshRow, now: Date) {
  if (row.consumedAt) {
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
  if (row.grant.revokedAt) {
    throw invalidGrant("The refresh token has been revoked. Install the app again to get new tokens.");
  }
  if (row.grant.installation.status !== "installed") {
    throw invalidGrant("The app has been uninstalled. Install it again to get new tokens.");
  }
}

function checkUserType(row: RefreshRow, userType: string | undefined) {
  if (userType !== undefined && userType !== row.grant.userType) {
    throw invalidGrant(`user_type must be ${row.grant.userType} for this refresh token, or left out.`);
  }
}

export async function refreshTokenGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const params = checkParams(ctx.form);
  const row = await findRefreshToken(params.token);
  if (!row) throw invalidGrant("The refresh token is not valid. Send the refresh_token exactly as you received it.");
  checkClient(row, ctx);
  await checkNotConsumed(row, now);
  checkExpiry(row, now);
  checkNotRevoked(row);
  checkUserType(row, params.userType);

  const key = await activeSigningKey();
  const { grant } = row;
  const result = await db().$transaction(async (tx) => {
    const consumed = await tx.refreshToken.updateMany({
      where: { id: row.id, consumedAt: null },
      data: { consumedAt: now },
    });
    if (consumed.count !== 1) return undefined;
    const issued = await issueTokens(tx, {
      grant,
      clientId: ctx.client.app.clientId,
      versionId: grant.installation.versionId,
      // Never more than the installation grants now (a re-install may have narrowed it).
      scopes: tokenScopes(grant.userType, grant.scopes, grant.installation.scopes),
      key,
      now,
    });
    return tokenResponse(issued, grant, row.approvedLocations, row.choice);
  }, GRANT_TRANSACTION_OPTIONS);
  if (!result) {
    await revokeFamily(row, now);
    throw reused();
  }
  return result;
}
