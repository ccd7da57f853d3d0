import { createHash } from "node:crypto";
import { hashSecret, safeEqual } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import type { AuthenticatedClient } from "../client-auth";
import { clientChanged } from "../client-auth";
import { invalidGrant, invalidRequest } from "../errors";
import {
  finishTokens,
  type GrantForIssue,
  issueRowsSql,
  newRowId,
  type PreparedTokens,
  prepareTokens,
  sqlTime,
  tokenResponse,
  tokenScopes,
} from "./issue";
import { revokeGrants } from "./revoke-grants";
import { parseUserType } from "./user-type";

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6), as an ordered list of
 * named checks. The code is consumed by the statement that issues the tokens; a code presented
 * again fails and revokes every token issued from it (RFC 6749 §4.1.2).
 */

const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface GrantContext {
  form: Record<string, string>;
  client: AuthenticatedClient;
  now: Date;
}

function checkParams(form: Record<string, string>) {
  const code = form.code;
  if (!code) throw invalidRequest("code is required: send the code your redirect_uri received.");
  const userType = parseUserType(form.user_type, { required: true });
  const verifier = form.code_verifier;
  if (verifier !== undefined && !CODE_VERIFIER.test(verifier)) {
    throw invalidRequest("code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'.");
  }
  if (code.length > 200) throw invalidGrant("The authorization code is not valid. Send it exactly as received.");
  return { code, userType: userType!, verifier, redirectUri: form.redirect_uri };
}

interface CodeRow {
  id: string;
  appId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string | null;
  scopes: string[];
  expiresAt: Date;
  consumedAt: Date | null;
  installation: {
    id: string;
    status: string;
    userType: UserType;
    companyId: string;
    locationId: string | null;
    versionId: string;
    approveAllLocations: boolean;
    installToFutureLocations: boolean;
    locations: string[];
  };
}

/**
 * The code with its installation and the installation's sub-accounts: one statement. Also whether
 * the client's secret hash is still the app's (the client may come from the read cache), so a
 * replaced secret never gets as far as a replay's revocation.
 */
async function findCode(code: string, client: AuthenticatedClient): Promise<CodeRow | undefined> {
  const rows = await db().$queryRaw<
    (Omit<CodeRow, "installation" | "expiresAt" | "consumedAt"> & {
      expiresAt: Date | string;
      consumedAt: Date | string | null;
      installationId: string;
      clientCurrent: boolean;
    } & Omit<CodeRow["installation"], "id">)[]
  >`
    SELECT c.id, c."appId", c."userId", c."redirectUri", c."codeChallenge", c.scopes, c."expiresAt", c."consumedAt",
           i.id AS "installationId", i.status::text AS status, i."userType"::text AS "userType", i."companyId",
           i."locationId", i."versionId", i."approveAllLocations", i."installToFutureLocations",
           ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                 WHERE l."installationId" = i.id ORDER BY l."locationId") AS locations,
           EXISTS (SELECT 1 FROM "App" a
                   WHERE a.id = ${client.app.id} AND a."clientSecretHash" = ${client.secretHash}) AS "clientCurrent"
    FROM "AuthorizationCode" c
    JOIN "Installation" i ON i.id = c."installationId"
    WHERE c."codeHash" = ${hashSecret(code)}`;
  const row = rows[0];
  if (!row) return undefined;
  if (!row.clientCurrent) throw clientChanged();
  return {
    id: row.id,
    appId: row.appId,
    userId: row.userId,
    redirectUri: row.redirectUri,
    codeChallenge: row.codeChallenge,
    scopes: row.scopes,
    expiresAt: new Date(row.expiresAt),
    consumedAt: row.consumedAt === null ? null : new Date(row.consumedAt),
    installation: {
      id: row.installationId,
      status: row.status,
      userType: row.userType,
      companyId: row.companyId,
      locationId: row.locationId,
      versionId: row.versionId,
      approveAllLocations: row.approveAllLocations,
      installToFutureLocations: row.installToFutureLocations,
      locations: row.locations,
    },
  };
}

async function revokeIssuedFrom(codeId: string, now: Date): Promise<void> {
  const revoked = await changeCachedState(() =>
    db().$transaction((tx) => revokeGrants(tx, { authorizationCodeId: codeId }, now)),
  );
  log.warn("authorization code replayed; revoked its grants", { replayedGrantSource: codeId, grants: revoked.length });
}

function replayed(): Error {
  return invalidGrant(
    "This authorization code was already used, so every token issued from it has been revoked. Install the app again to get a new code.",
    "code replay",
  );
}

function checkClient(row: CodeRow, ctx: GrantContext) {
  if (row.appId !== ctx.client.app.id) {
    throw invalidGrant(
      "This authorization code was issued to another app. Exchange it with the client_id it was issued to.",
      "code of another client",
    );
  }
}

function checkExpiry(row: CodeRow, now: Date) {
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw invalidGrant(
      "The authorization code has expired (codes last 10 minutes). Install the app again to get a new code.",
    );
  }
}

async function checkNotConsumed(row: CodeRow, now: Date) {
  if (row.consumedAt) {
    await revokeIssuedFrom(row.id, now);
    throw replayed();
  }
}

function checkRedirectUri(row: CodeRow, redirectUri: string | undefined) {
  if (redirectUri !== undefined && redirectUri !== row.redirectUri) {
    throw invalidGrant("redirect_uri does not match the one the authorization code was issued for.");
  }
}

/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) == code_challenge. */
function checkPkce(row: CodeRow, verifier: string | undefined) {
  if (row.codeChallenge) {
    if (!verifier) throw invalidGrant("code_verifier is required: this code was issued with a PKCE code_challenge.");
    const computed = createHash("sha256").update(verifier, "ascii").digest("base64url");
    if (!safeEqual(computed, row.codeChallenge)) {
      throw invalidGrant("code_verifier does not match the code_challenge sent when the app was installed.");
    }
  } else if (verifier) {
    throw invalidGrant("code_verifier was sent, but this code was issued without a code_challenge.");
  }
}

function checkUserType(row: CodeRow, userType: string) {
  if (row.installation.userType !== userType) {
    throw invalidGrant(
      `user_type must be ${row.installation.userType}: the app was installed at ${
        row.installation.userType === "Company" ? "agency (Company)" : "sub-account (Location)"
      } level.`,
    );
  }
}

const uninstalled = () =>
  invalidGrant("The app was uninstalled after this code was issued. Install it again to get a new code.");

function checkInstalled(row: CodeRow) {
  if (row.installation.status !== "installed") throw uninstalled();
}

export async function authorizationCodeGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const params = checkParams(ctx.form);
  const row = await findCode(params.code, ctx.client);
  if (!row)
    throw invalidGrant("The authorization code is not valid. Send it exactly as your redirect_uri received it.");
  checkClient(row, ctx);
  // A replay revokes what the code issued even after the code has expired (RFC 6749 §4.1.2).
  await checkNotConsumed(row, now);
  checkExpiry(row, now);
  checkRedirectUri(row, params.redirectUri);
  checkPkce(row, params.verifier);
  checkUserType(row, params.userType);
  checkInstalled(row);

  const key = await activeSigningKey();
  const installation = row.installation;
  const tokens = prepareTokens(now);
  const redeemed = await redeem(row, ctx, tokens);
  if (redeemed.outcome === "client_changed") throw clientChanged();
  if (redeemed.outcome === "uninstalled") throw uninstalled();
  if (redeemed.outcome === "replayed") {
    // Another request consumed the code between our read and our update: a replay all the same.
    await revokeIssuedFrom(row.id, now);
    throw replayed();
  }
  const grant: GrantForIssue = {
    id: redeemed.grantId,
    userType: installation.userType,
    companyId: installation.companyId,
    locationId: installation.locationId,
    userId: row.userId,
    scopes: redeemed.scopes,
  };
  const issued = await finishTokens(tokens, {
    grant,
    clientId: ctx.client.app.clientId,
    versionId: installation.versionId,
    scopes: tokenScopes(grant.userType, grant.scopes),
    key,
  });
  return tokenResponse(issued, grant, installation.locations, installation);
}

type Redemption =
  | { outcome: "issued"; grantId: string; scopes: string[] }
  | { outcome: "client_changed" }
  | { outcome: "uninstalled" }
  | { outcome: "replayed" };

/**
 * Consumes the code and writes its grant and first tokens in ONE statement. Single use is the
 * conditional UPDATE: of requests racing with one code, the row lock lets one through and the
 * others find it consumed (a replay). The grant holds the scopes the code and the installation
 * both hold now: a re-install since the code was issued may have narrowed the installation, and
 * no grant gets more than it holds (as refresh and /oauth/locationToken do). The installation is
 * read FOR SHARE: an uninstall in flight (it locks the installation first, then revokes by
 * installation) makes this statement wait and then see it gone, so no grant outlives an uninstall.
 * The stored hash of the client's secret must still be the one it authenticated against (see
 * client-auth.ts).
 */
async function redeem(row: CodeRow, ctx: GrantContext, tokens: PreparedTokens): Promise<Redemption> {
  const { now } = ctx;
  const installation = row.installation;
  const rows = await db().$queryRaw<
    { clientOk: boolean; installed: boolean; grantId: string | null; scopes: string[] | null }[]
  >`
    WITH client AS MATERIALIZED (
      SELECT EXISTS (
        SELECT 1 FROM "App" a WHERE a.id = ${ctx.client.app.id} AND a."clientSecretHash" = ${ctx.client.secretHash}
      ) AS ok
    ),
    installation AS MATERIALIZED (
      SELECT i.id, i.scopes FROM "Installation" i
      WHERE i.id = ${installation.id} AND i.status = 'installed' AND (SELECT ok FROM client)
      FOR SHARE
    ),
    consumed AS (
      UPDATE "AuthorizationCode" c SET "consumedAt" = ${sqlTime(now)}
      FROM installation i
      WHERE c.id = ${row.id} AND c."consumedAt" IS NULL
      RETURNING c.id,
        ARRAY(SELECT s FROM unnest(c.scopes) WITH ORDINALITY AS x(s, n) WHERE s = ANY(i.scopes) ORDER BY n) AS scopes
    ),
    issuable AS MATERIALIZED (
      INSERT INTO "TokenGrant" (id, "appId", "installationId", "authorizationCodeId", "userType", "companyId",
                                "locationId", "userId", scopes, "createdAt")
      SELECT ${newRowId()}, ${row.appId}, ${installation.id}, c.id, ${installation.userType}::"UserType",
             ${installation.companyId}, ${installation.locationId}, ${row.userId}, c.scopes, ${sqlTime(now)}
      FROM consumed c
      RETURNING id AS "grantId", scopes
    ),
    ${issueRowsSql(tokens, Prisma.sql`issuable`)}
    SELECT (SELECT ok FROM client) AS "clientOk", EXISTS (SELECT 1 FROM installation) AS installed,
           g."grantId", g.scopes
    FROM (SELECT 1) one LEFT JOIN issuable g ON true`;
  const result = rows[0];
  if (!result?.clientOk) return { outcome: "client_changed" };
  if (!result.installed) return { outcome: "uninstalled" };
  if (!result.grantId || !result.scopes) return { outcome: "replayed" };
  return { outcome: "issued", grantId: result.grantId, scopes: result.scopes };
}
