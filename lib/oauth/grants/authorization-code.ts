import { createHash } from "node:crypto";
import { hashSecret, safeEqual } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { log } from "@/lib/log";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import type { AuthenticatedClient } from "../client-auth";
import { invalidGrant, invalidRequest } from "../errors";
import { GRANT_TRANSACTION_OPTIONS, issueTokens, tokenResponse, tokenScopes } from "./issue";
import { revokeGrants } from "./revoke-grants";
import { parseUserType } from "./user-type";

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6), as an ordered list of
 * named checks. The code is consumed in the transaction that issues the tokens; a code presented
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

async function findCode(code: string) {
  return db().authorizationCode.findUnique({
    where: { codeHash: hashSecret(code) },
    include: {
      installation: {
        select: {
          id: true,
          status: true,
          userType: true,
          companyId: true,
          locationId: true,
          versionId: true,
          scopes: true,
          approveAllLocations: true,
          installToFutureLocations: true,
          locations: { select: { locationId: true }, orderBy: { locationId: "asc" } },
        },
      },
    },
  });
}
type CodeRow = NonNullable<Awaited<ReturnType<typeof findCode>>>;

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

function checkInstalled(row: CodeRow) {
  if (row.installation.status !== "installed") {
    throw invalidGrant("The app was uninstalled after this code was issued. Install it again to get a new code.");
  }
}

export async function authorizationCodeGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const params = checkParams(ctx.form);
  const row = await findCode(params.code);
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
  // A re-install since the code was issued may have narrowed the installation: never grant more
  // than it holds now (as refresh and /oauth/locationToken do).
  const scopes = row.scopes.filter((s) => installation.scopes.includes(s));
  const result = await db().$transaction(async (tx) => {
    const consumed = await tx.authorizationCode.updateMany({
      where: { id: row.id, consumedAt: null },
      data: { consumedAt: now },
    });
    if (consumed.count !== 1) return undefined;
    const grant = await tx.tokenGrant.create({
      data: {
        appId: row.appId,
        installationId: installation.id,
        authorizationCodeId: row.id,
        userType: installation.userType,
        companyId: installation.companyId,
        locationId: installation.locationId,
        userId: row.userId,
        scopes,
        createdAt: now,
      },
    });
    const issued = await issueTokens(tx, {
      grant,
      clientId: ctx.client.app.clientId,
      versionId: installation.versionId,
      scopes: tokenScopes(grant.userType, scopes),
      key,
      now,
    });
    return tokenResponse(
      issued,
      grant,
      installation.locations.map((l) => l.locationId),
      installation,
    );
  }, GRANT_TRANSACTION_OPTIONS);
  if (!result) {
    // Another request consumed the code between our read and our update: a replay all the same.
    await revokeIssuedFrom(row.id, now);
    throw replayed();
  }
  return result;
}
