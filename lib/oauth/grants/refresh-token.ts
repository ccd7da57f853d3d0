// Over 250 lines on purpose: the rotating refresh in one place: its one statement (whose text is
// its documentation of the locks), the refusals it names and the answer to each.
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { FixedStatement } from "@/lib/db/fixed-statement";
import { runHotStatement } from "@/lib/db/hot-statement";
import { changeCachedState } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { activeSigningKey, activeSigningKeyNow } from "@/lib/tokens/signing-keys";
import { clientChanged } from "../client-auth";
import { secretStillAcceptedSql } from "../client-secret";
import { invalidGrant, invalidRequest } from "../errors";
import type { GrantContext } from "./authorization-code";
import {
  finishTokens,
  type GrantForIssue,
  issueRowsTemplate,
  type PreparedTokens,
  prepareTokens,
  sqlTimeParam,
  tokenResponse,
  tokenScopes,
} from "./issue";
import { revokeGrants } from "./revoke-grants";
import { parseUserType } from "./user-type";

/**
 * grant_type=refresh_token (RFC 6749 §6). Refresh tokens are single-use and rotate: the one
 * presented is consumed by the statement that issues its successor. Presenting a consumed one
 * means it leaked or was replayed, so its whole family (the grant and the Location grants
 * exchanged from it) is revoked (OAuth 2.0 Security BCP §4.14.2) — unless its own client presents
 * it again within REFRESH_TOKEN_REUSE_SECONDS of its first use (SPEC.md): that is a retry after a
 * lost response or a second process of the app, and it gets another pair of the same family
 * (Okta's "grace period for token rotation", Auth0's "reuse interval").
 */

function checkParams(form: Record<string, string>) {
  const token = form.refresh_token;
  if (!token) throw invalidRequest("refresh_token is required: send the refresh_token of your last token response.");
  return { token, userType: parseUserType(form.user_type) };
}

async function revokeFamily(grantId: string, now: Date): Promise<void> {
  const revoked = await changeCachedState(() => db().$transaction((tx) => revokeGrants(tx, { id: grantId }, now)));
  log.warn("refresh token reused; revoked its family", { grantId, grants: revoked.length });
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

/**
 * Whether a refresh token first used at `firstUsedAt` may be presented again at `now`: strictly
 * less than `windowSeconds` later. `0` turns the window off. An instance whose clock is behind the
 * one that recorded the first use sees a negative age, which is inside the window too.
 */
export function insideReuseWindow(firstUsedAt: Date, now: Date, windowSeconds: number): boolean {
  if (windowSeconds <= 0) return false;
  return now.getTime() - firstUsedAt.getTime() < windowSeconds * 1000;
}

/** The same rule as `insideReuseWindow`, for SQL: inside means first used after this moment (none when off). */
function reuseCutoff(now: Date, windowSeconds: number): Date | null {
  return windowSeconds <= 0 ? null : new Date(now.getTime() - windowSeconds * 1000);
}

/** Why the statement issued nothing, in the order the checks are made (first failing one). */
type Refusal = "client_changed" | "other_client" | "reused" | "expired" | "revoked" | "uninstalled" | "user_type";

interface RedemptionRow {
  /** Null when no refresh token has this hash. */
  refusal: Refusal | null;
  found: boolean;
  issued: boolean;
  grantId: string | null;
  userType: UserType | null;
  companyId: string;
  locationId: string | null;
  userId: string;
  scopes: string[];
  consumedAt: Date | string | null;
  versionId: string;
  installationScopes: string[];
  approvedLocations: string[];
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
}

/** What one refresh's statement reads: its values. */
interface Redemption {
  tokenHash: string;
  appId: string;
  /** Null for a client authenticated by a key: nothing to check. */
  secretHash: string | null;
  /** ISO text, or null when the reuse window is off. */
  cutoff: string | null;
  userType: UserType | null;
  now: Date;
  tokens: PreparedTokens;
}

/**
 * Consumes the presented refresh token and writes its successors in ONE statement, whose locks
 * decide every race (nothing is decided on an earlier read):
 * - `family`: the grant of the token with this hash, locked FOR SHARE first (the order a
 *   revocation locks in). A revocation (reuse, RFC 7009, uninstall) that committed first is seen in
 *   the row's newest version and refused; one that comes later waits for this statement and then
 *   revokes what it issued too. Refreshes of one family share the lock and do not wait on each other.
 * - `used`: the token, locked FOR UPDATE after the grant: a first use in flight elsewhere is waited
 *   for, and its committed `consumedAt` is what this statement reads (a locking read returns the
 *   newest version). Never used: this is the first use and `consumed` records it. Used inside the
 *   window by this client: a replay that gets a pair of its own. Used before that: reuse, nothing
 *   written, and the caller revokes the family.
 * - `client`: the app still accepts the secret hash the client authenticated with, the current
 *   secret's or the previous one's inside its overlap (client authentication may answer from the
 *   read cache: see client-auth.ts and client-secret.ts).
 * Each step reads only what the next needs, as few materialized steps as the locks allow: this is
 * the statement of every refresh, and PostgreSQL's CPU per refresh is shared with the server's.
 * Its text is built once (lib/db/fixed-statement.ts); a refresh makes only its values.
 */
const redemption = new FixedStatement<Redemption>(() => {
  const value = (key: keyof Redemption) => (input: Redemption) => input[key];
  const now = sqlTimeParam((input: Redemption) => input.now);
  const issueRows = issueRowsTemplate(
    (input: Redemption) => input.tokens,
    Prisma.sql`(SELECT "grantId" FROM decision WHERE refusal IS NULL)`,
  );
  return Prisma.sql`
    WITH family AS MATERIALIZED (
      SELECT g.id AS "grantId", g."appId", g."installationId", g."userType"::text AS "userType", g."companyId",
             g."locationId", g."userId", g.scopes, g."revokedAt"
      FROM "TokenGrant" g
      WHERE g.id = (SELECT r."grantId" FROM "RefreshToken" r WHERE r."tokenHash" = ${value("tokenHash")})
      FOR SHARE
    ),
    used AS MATERIALIZED (
      SELECT r.id, r."consumedAt", r."expiresAt" FROM "RefreshToken" r
      WHERE r."tokenHash" = ${value("tokenHash")} AND r."grantId" = (SELECT "grantId" FROM family)
      FOR UPDATE
    ),
    client AS MATERIALIZED (
      SELECT NOT EXISTS (
        SELECT 1 FROM "App" a
        WHERE a.id = ${value("appId")} AND ${secretStillAcceptedSql("a", value("secretHash"), now)}
      ) AS changed
    ),
    decision AS MATERIALIZED (
      SELECT u.id, u."consumedAt", f.*, i."versionId", i.scopes AS "installationScopes",
             i."approveAllLocations", i."installToFutureLocations",
             CASE
               WHEN c.changed THEN 'client_changed'
               WHEN f."appId" <> ${value("appId")} THEN 'other_client'
               WHEN u."consumedAt" IS NOT NULL
                    AND NOT COALESCE(u."consumedAt" > ${value("cutoff")}::timestamp(3), false) THEN 'reused'
               WHEN u."expiresAt" <= ${now} THEN 'expired'
               WHEN f."revokedAt" IS NOT NULL THEN 'revoked'
               WHEN i.status <> 'installed' THEN 'uninstalled'
               WHEN ${value("userType")}::text IS NOT NULL AND f."userType" <> ${value("userType")}::text THEN 'user_type'
             END AS refusal
      FROM used u
      JOIN family f ON true
      JOIN "Installation" i ON i.id = f."installationId"
      CROSS JOIN client c
    ),
    consumed AS (
      UPDATE "RefreshToken" r SET "consumedAt" = ${now}
      FROM decision s
      WHERE r.id = s.id AND s.refusal IS NULL AND s."consumedAt" IS NULL AND r."consumedAt" IS NULL
      RETURNING r.id
    ),
    ${issueRows}
    SELECT d.id IS NOT NULL AS found,
           COALESCE(d.refusal, CASE WHEN c.changed THEN 'client_changed' END) AS refusal,
           EXISTS (SELECT 1 FROM issued_access) AS issued,
           d."grantId", d."userType", d."companyId", d."locationId", d."userId", d.scopes, d."consumedAt",
           d."versionId", d."installationScopes", d."approveAllLocations", d."installToFutureLocations",
           -- Only a Company token's answer lists the approved sub-accounts (tokenResponse).
           CASE WHEN d."userType" = 'Company' THEN
             ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                   WHERE l."installationId" = d."installationId" ORDER BY l."locationId")
           ELSE '{}'::text[] END AS "approvedLocations"
    FROM client c LEFT JOIN decision d ON true`;
});

function redeem(
  token: string,
  userType: UserType | undefined,
  ctx: GrantContext,
  tokens: PreparedTokens,
  windowSeconds: number,
): Promise<RedemptionRow> {
  const { now } = ctx;
  const values = redemption.values({
    tokenHash: hashSecret(token),
    appId: ctx.client.app.id,
    secretHash: ctx.client.secretHash,
    cutoff: reuseCutoff(now, windowSeconds)?.toISOString() ?? null,
    userType: userType ?? null,
    now,
    tokens,
  });
  // Every refresh runs it: past Prisma's runtime on PostgreSQL (lib/db/hot-statement.ts).
  return runHotStatement<RedemptionRow>(redemption.text, values).then((rows) => rows[0] as RedemptionRow);
}

export async function refreshTokenGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const windowSeconds = env().REFRESH_TOKEN_REUSE_SECONDS;
  const params = checkParams(ctx.form);
  const notValid = () =>
    invalidGrant("The refresh token is not valid. Send the refresh_token exactly as you received it.");
  if (params.token.length > 200) throw notValid();
  const key = activeSigningKeyNow(now) ?? (await activeSigningKey(now));
  const tokens = prepareTokens(now);
  const row = await redeem(params.token, params.userType, ctx, tokens, windowSeconds);
  if (row.refusal === "client_changed") throw clientChanged();
  if (!row.found || !row.grantId || !row.userType) throw notValid();
  const grant: GrantForIssue = {
    id: row.grantId,
    userType: row.userType,
    companyId: row.companyId,
    locationId: row.locationId,
    userId: row.userId,
    scopes: row.scopes,
  };
  switch (row.refusal) {
    case "other_client":
      throw invalidGrant("This refresh token was issued to another app.", "refresh token of another client");
    case "reused":
      // A used token outside the window is reuse: revoke the family, even when the token has expired since.
      await revokeFamily(grant.id, now);
      throw reused();
    case "expired":
      throw invalidGrant(
        "The refresh token has expired (they last 365 days). Install the app again to get new tokens.",
      );
    case "revoked":
      throw revoked();
    case "uninstalled":
      throw invalidGrant("The app has been uninstalled. Install it again to get new tokens.");
    case "user_type":
      throw invalidGrant(`user_type must be ${grant.userType} for this refresh token, or left out.`);
  }
  if (!row.issued) throw new Error("The refresh statement neither issued nor named a refusal.");
  if (row.consumedAt !== null) {
    log.info("refresh token presented again inside the reuse window; issued another pair of its family", {
      grantId: grant.id,
      replayAgeMs: now.getTime() - new Date(row.consumedAt).getTime(),
    });
  }
  const issued = finishTokens(tokens, {
    grant,
    clientId: ctx.client.app.clientId,
    versionId: row.versionId,
    // Never more than the installation grants now (a re-install may have narrowed it).
    scopes: tokenScopes(grant.userType, grant.scopes, row.installationScopes),
    key,
  });
  return tokenResponse(issued, grant, row.approvedLocations, {
    approveAllLocations: row.approveAllLocations,
    installToFutureLocations: row.installToFutureLocations,
  });
}
