import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { activeSigningKey, activeSigningKeyNow } from "@/lib/tokens/signing-keys";
import { clientChanged } from "../client-auth";
import { invalidGrant, invalidRequest } from "../errors";
import type { GrantContext } from "./authorization-code";
import { finishTokens, type GrantForIssue, prepareTokens, tokenResponse, tokenScopes } from "./issue";
import { redeem } from "./redemption";
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
      replayAgeMs: now.getTime() - row.consumedAt.getTime(),
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
