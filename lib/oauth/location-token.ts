import { findLocation } from "@/lib/accounts/locations";
import { bearerError, requireCompanyToken } from "@/lib/api/bearer";
import type { CountRequest } from "@/lib/api/token-route";
import { requireVersion } from "@/lib/api/version";
import { type Db, db, type Tx } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { newRowId } from "@/lib/db/row-id";
import { Prisma } from "@/lib/generated/prisma/client";
import { countTokenError, countTokenIssued } from "@/lib/metrics/metrics";
import type { Principal } from "@/lib/tokens/principal";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { invalidRequest } from "./errors";
import {
  finishTokens,
  GRANT_TRANSACTION_OPTIONS,
  type GrantForIssue,
  issueRowsSql,
  type PreparedTokens,
  prepareTokens,
  sqlTime,
  tokenScopes,
} from "./grants/issue";
import { readOAuthForm, tokenErrorCode } from "./token-endpoint";

/**
 * POST /oauth/locationToken: a Company token of an agency install buys a Location token for one
 * of the sub-accounts the app was installed on. Each exchange is a new grant, child of the
 * Company token's grant, so revoking or uninstalling takes it down too, also when the revocation
 * runs at the same time as the exchange (see `exchangeStatement`).
 */

/**
 * The route's work inside the rate limits' frame (`count` counts the caller): the Version header,
 * the Company token, the form, then the exchange. The token issued, or the refusal, is counted in
 * the metrics (when on) as grant `location_token`.
 */
export async function locationTokenEndpoint(
  request: Request,
  traceId: string,
  count: CountRequest,
): Promise<Record<string, unknown>> {
  try {
    requireVersion(request);
    const principal = await requireCompanyToken(request, "oauth.write", { count });
    const form = await readOAuthForm(request);
    const body = await exchangeForLocationToken({ principal, form, traceId });
    countTokenIssued("location_token", "Location");
    return body;
  } catch (error) {
    countTokenError("location_token", tokenErrorCode(error));
    throw error;
  }
}

export interface LocationTokenRequest {
  principal: Principal;
  form: Record<string, string>;
  traceId: string;
  now?: Date;
  /** Tests only: steps injected where a concurrent revocation can fall (location-token.race.test.ts). */
  pauses?: ExchangePauses;
}

export interface ExchangePauses {
  /** After the checks made before the exchange's statement, before it runs. */
  afterChecks?: () => Promise<void>;
  /** With it, the statement runs in a transaction: after its writes, just before it commits. */
  beforeCommit?: (tx: Tx) => Promise<void>;
}

function checkParams(form: Record<string, string>) {
  const { companyId, locationId } = form;
  if (!companyId) throw invalidRequest("companyId is required: the agency id your Company token was issued for.");
  if (!locationId) throw invalidRequest("locationId is required: the sub-account to get a token for.");
  return { companyId, locationId };
}

const revokedParent = () => bearerError("invalid_token", "The access token has been revoked or the app uninstalled.");
const notInstalledHere = () =>
  bearerError(
    "forbidden",
    "The app is not installed on this sub-account. Install it again at agency level and choose this sub-account.",
  );

interface ExchangeRow {
  /** Null when the child grant was written. */
  refusal: "revoked" | "not_chosen" | null;
  clientId: string | null;
  userId: string | null;
  versionId: string | null;
  scopes: string[] | null;
  installationScopes: string[] | null;
}

/**
 * Checks the Company token's grant, its installation and the sub-account, and writes the child
 * grant with its tokens, in ONE statement. The checks are locking reads, FOR SHARE, each of a row
 * that a revocation changes: the installation (uninstall and re-install update it), the parent
 * grant (a family revocation updates it) and the chosen sub-account (a re-install that drops it
 * deletes it). A locking read waits for a change in flight and then reads the row's newest
 * version (or finds it deleted), so a revocation that committed first is seen and the exchange
 * refuses; one that comes later waits for this statement's commit and then revokes the child too
 * (grants/revoke-grants.ts reads children after locking their parents). Each lock is taken only
 * after the one before it (the EXISTS of each CTE), in the order those writers take theirs
 * (installation, grant, sub-accounts), so none can deadlock with an exchange.
 */
async function exchangeStatement(
  client: Db | Tx,
  request: { jti: string; companyId: string; locationId: string; grantId: string; tokens: PreparedTokens },
): Promise<ExchangeRow> {
  const { tokens } = request;
  const rows = await client.$queryRaw<ExchangeRow[]>`${PREPARED}
    WITH parent AS MATERIALIZED (
      SELECT g.id, g."installationId", g."appId", g."userId", a."clientId"
      FROM "AccessToken" t
      JOIN "TokenGrant" g ON g.id = t."grantId"
      JOIN "App" a ON a.id = g."appId"
      WHERE t.jti = ${request.jti}
    ),
    installation AS MATERIALIZED (
      SELECT i.status::text AS status, i."versionId", i.scopes FROM "Installation" i
      WHERE i.id = (SELECT "installationId" FROM parent)
      FOR SHARE
    ),
    parent_grant AS MATERIALIZED (
      SELECT g."revokedAt", g.scopes FROM "TokenGrant" g
      WHERE g.id = (SELECT id FROM parent) AND EXISTS (SELECT 1 FROM installation)
      FOR SHARE
    ),
    chosen AS MATERIALIZED (
      SELECT l."locationId" FROM "InstallationLocation" l
      WHERE l."installationId" = (SELECT "installationId" FROM parent) AND l."locationId" = ${request.locationId}
        AND EXISTS (SELECT 1 FROM parent_grant)
      FOR SHARE
    ),
    decision AS MATERIALIZED (
      SELECT p.*, i."versionId", i.scopes AS "installationScopes", g.scopes,
             CASE
               WHEN i.status IS DISTINCT FROM 'installed' THEN 'revoked'
               WHEN g.scopes IS NULL OR g."revokedAt" IS NOT NULL THEN 'revoked'
               WHEN NOT EXISTS (SELECT 1 FROM chosen) THEN 'not_chosen'
             END AS refusal
      FROM parent p
      LEFT JOIN installation i ON true
      LEFT JOIN parent_grant g ON true
    ),
    issuable AS MATERIALIZED (
      INSERT INTO "TokenGrant" (id, "appId", "installationId", "parentGrantId", "userType", "companyId",
                                "locationId", "userId", scopes, "createdAt")
      SELECT ${request.grantId}, d."appId", d."installationId", d.id, 'Location'::"UserType", ${request.companyId},
             ${request.locationId}, d."userId", d.scopes, ${sqlTime(tokens.now)}
      FROM decision d WHERE d.refusal IS NULL
      RETURNING id AS "grantId"
    ),
    ${issueRowsSql(tokens, Prisma.sql`issuable`)}
    SELECT COALESCE(d.refusal, CASE WHEN d.id IS NULL THEN 'revoked' END) AS refusal,
           d."clientId", d."userId", d."versionId", d.scopes, d."installationScopes"
    FROM (SELECT 1) one LEFT JOIN decision d ON true`;
  return rows[0] as ExchangeRow;
}

export async function exchangeForLocationToken(options: LocationTokenRequest): Promise<Record<string, unknown>> {
  const { principal, traceId } = options;
  const now = options.now ?? new Date();
  const { companyId, locationId } = checkParams(options.form);
  if (companyId !== principal.companyId) {
    throw bearerError("forbidden", "companyId is not the agency this access token was issued for.");
  }
  const location = await findLocation(locationId);
  if (!location || location.companyId !== companyId) {
    throw bearerError("forbidden", "locationId is not a sub-account of this agency.");
  }
  const key = await activeSigningKey();
  await options.pauses?.afterChecks?.();
  const request = { jti: principal.tokenId, companyId, locationId, grantId: newRowId(), tokens: prepareTokens(now) };
  const beforeCommit = options.pauses?.beforeCommit;
  const run = () =>
    beforeCommit
      ? // Tests only: the same statement in a transaction held open after it, so a revocation can be
        // started while the statement's locks are held (location-token.race.test.ts).
        db().$transaction(async (tx) => {
          const row = await exchangeStatement(tx, request);
          if (row.refusal === null) await beforeCommit(tx);
          return row;
        }, GRANT_TRANSACTION_OPTIONS)
      : exchangeStatement(db(), request);
  let row = await run();
  // A re-install that keeps the sub-account deletes its row and writes it again: a statement that
  // waited for that re-install still sees the old row, deleted. Once more, on a fresh snapshot.
  if (row.refusal === "not_chosen") row = await run();
  if (row.refusal === "revoked") throw revokedParent();
  if (row.refusal === "not_chosen") throw notInstalledHere();
  if (!row.clientId || !row.userId || !row.versionId || !row.scopes || !row.installationScopes) {
    throw new Error("The exchange statement neither issued nor named a refusal.");
  }
  const grant: GrantForIssue = {
    id: request.grantId,
    userType: "Location",
    companyId,
    locationId,
    userId: row.userId,
    scopes: row.scopes,
  };
  const issued = finishTokens(request.tokens, {
    grant,
    clientId: row.clientId,
    versionId: row.versionId,
    scopes: tokenScopes("Location", row.scopes, row.installationScopes),
    key,
  });
  return {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    refresh_token: issued.refreshToken,
    scope: issued.scopes.join(" "),
    userType: "Location",
    companyId,
    locationId,
    userId: grant.userId,
    traceId,
  };
}
