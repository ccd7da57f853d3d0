import { createHash } from "node:crypto";
import { hashSecret, safeEqual } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { changeCachedState } from "@/lib/db/read-cache";
import type { UserType } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import type { AuthenticatedClient } from "../client-auth";
import { clientChanged } from "../client-auth";
import { invalidGrant, invalidRequest } from "../errors";
import { finishTokens, type GrantForIssue, prepareTokens, tokenResponse, tokenScopes } from "./issue";
import { redeem } from "./redeem-code";
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

export interface CodeRow {
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
  >`${PREPARED}
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
