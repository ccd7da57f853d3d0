import { createHash } from "node:crypto";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import type { UserType } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import type { AuthenticatedClient } from "../client-auth";
import { clientChanged } from "../client-auth";
import { invalidGrant, invalidRequest } from "../errors";
import { finishTokens, type GrantForIssue, prepareTokens, tokenResponse, tokenScopes } from "./issue";
import { type CodeRefusal, redeemCode } from "./redeem-code";
import { revokeGrants } from "./revoke-grants";
import { parseUserType } from "./user-type";

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6): the parameters are checked
 * here, the code by the one statement that consumes it and issues the tokens (redeem-code.ts),
 * which names the first check that fails. A code presented again fails and revokes every token
 * issued from it (RFC 6749 §4.1.2).
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
  // Optional (SPEC.md): when sent it must match the installation, else its level is used.
  const userType = parseUserType(form.user_type);
  const verifier = form.code_verifier;
  if (verifier !== undefined && !CODE_VERIFIER.test(verifier)) {
    throw invalidRequest("code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'.");
  }
  if (code.length > 200) throw invalidGrant("The authorization code is not valid. Send it exactly as received.");
  return { code, userType, verifier, redirectUri: form.redirect_uri };
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

const uninstalled = () =>
  invalidGrant("The app was uninstalled after this code was issued. Install it again to get a new code.");

/** Each refusal of the statement as the RFC 6749 §5.2 error it stands for, in the statement's order. */
function refusalError(refusal: Exclude<CodeRefusal, "client_changed" | "consumed">, installedAs: UserType): Error {
  switch (refusal) {
    case "other_client":
      return invalidGrant(
        "This authorization code was issued to another app. Exchange it with the client_id it was issued to.",
        "code of another client",
      );
    case "expired":
      return invalidGrant(
        "The authorization code has expired (codes last 10 minutes). Install the app again to get a new code.",
      );
    case "redirect_uri":
      return invalidGrant("redirect_uri does not match the one the authorization code was issued for.");
    case "pkce_missing":
      return invalidGrant("code_verifier is required: this code was issued with a PKCE code_challenge.");
    case "pkce_mismatch":
      return invalidGrant("code_verifier does not match the code_challenge sent when the app was installed.");
    case "pkce_unexpected":
      return invalidGrant("code_verifier was sent, but this code was issued without a code_challenge.");
    case "user_type":
      return invalidGrant(
        `user_type must be ${installedAs}: the app was installed at ${
          installedAs === "Company" ? "agency (Company)" : "sub-account (Location)"
        } level.`,
      );
    case "uninstalled":
      return uninstalled();
  }
}

/**
 * The checks, in order (each the first that fails decides): the code exists; the client's secret
 * is still current; the code is this client's; it was not used before (a replay revokes what it
 * issued, even after it expired: RFC 6749 §4.1.2); it has not expired; redirect_uri, when sent,
 * is the code's; PKCE (S256, RFC 7636 §4.6); user_type, when sent, is the installation's level; the app is
 * still installed. All of them are made by the statement that consumes the code (redeem-code.ts).
 */
export async function authorizationCodeGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { now } = ctx;
  const params = checkParams(ctx.form);
  const key = await activeSigningKey();
  const tokens = prepareTokens(now);
  const redemption = await redeemCode(
    {
      codeHash: hashSecret(params.code),
      userType: params.userType,
      redirectUri: params.redirectUri,
      verifierChallenge: params.verifier
        ? createHash("sha256").update(params.verifier, "ascii").digest("base64url")
        : null,
    },
    ctx,
    tokens,
  );
  if (!redemption.found)
    throw invalidGrant("The authorization code is not valid. Send it exactly as your redirect_uri received it.");
  const { refusal, codeId } = redemption;
  if (refusal === "client_changed") throw clientChanged();
  if (refusal === "consumed" || (refusal === null && redemption.installed && !redemption.grantId)) {
    // Used before, or by another request between this statement's read and its update: a replay.
    await revokeIssuedFrom(codeId as string, now);
    throw replayed();
  }
  if (refusal) throw refusalError(refusal, redemption.userType);
  if (!redemption.installed) throw uninstalled(); // uninstalled while this statement waited for it
  const grant: GrantForIssue = {
    id: redemption.grantId as string,
    userType: redemption.userType,
    companyId: redemption.companyId,
    locationId: redemption.locationId,
    userId: redemption.userId,
    scopes: redemption.scopes ?? [],
  };
  const issued = finishTokens(tokens, {
    grant,
    clientId: ctx.client.app.clientId,
    versionId: redemption.versionId,
    scopes: tokenScopes(grant.userType, grant.scopes),
    key,
  });
  return tokenResponse(issued, grant, redemption.locations, redemption);
}
