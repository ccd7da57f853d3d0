import { db } from "@/lib/db/client";
import { findLocation } from "@/lib/locations/get-location";
import type { Principal } from "@/lib/tokens/principal";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { bearerError } from "./bearer";
import { invalidRequest } from "./errors";
import { GRANT_TRANSACTION_OPTIONS, issueTokens, tokenScopes } from "./grants/issue";

/**
 * POST /oauth/locationToken: a Company token of an agency install buys a Location token for one
 * of the sub-accounts the app was installed on. Each exchange is a new grant, child of the
 * Company token's grant, so revoking or uninstalling takes it down too.
 */

export interface LocationTokenRequest {
  principal: Principal;
  form: Record<string, string>;
  traceId: string;
  now?: Date;
}

function checkParams(form: Record<string, string>) {
  const { companyId, locationId } = form;
  if (!companyId) throw invalidRequest("companyId is required: the agency id your Company token was issued for.");
  if (!locationId) throw invalidRequest("locationId is required: the sub-account to get a token for.");
  return { companyId, locationId };
}

interface ParentGrant {
  id: string;
  appId: string;
  installationId: string;
  userId: string;
  scopes: string[];
  versionId: string;
  installationScopes: string[];
  clientId: string;
  /** Whether the agency install chose the requested sub-account. */
  installedHere: boolean;
}

/** The grant of the Company token, with what the exchange needs: one statement. */
async function findParentGrant(jti: string, locationId: string): Promise<ParentGrant | undefined> {
  const rows = await db().$queryRaw<ParentGrant[]>`
    SELECT g.id, g."appId", g."installationId", g."userId", g.scopes,
           i."versionId", i.scopes AS "installationScopes", a."clientId",
           EXISTS (SELECT 1 FROM "InstallationLocation" l
                   WHERE l."installationId" = i.id AND l."locationId" = ${locationId}) AS "installedHere"
    FROM "AccessToken" t
    JOIN "TokenGrant" g ON g.id = t."grantId"
    JOIN "Installation" i ON i.id = g."installationId"
    JOIN "App" a ON a.id = i."appId"
    WHERE t.jti = ${jti}`;
  return rows[0];
}

export async function exchangeForLocationToken(options: LocationTokenRequest): Promise<Record<string, unknown>> {
  const { principal, traceId } = options;
  const now = options.now ?? new Date();
  const { companyId, locationId } = checkParams(options.form);
  if (companyId !== principal.companyId) {
    throw bearerError("forbidden", "companyId is not the agency this access token was issued for.");
  }
  const [location, parent] = await Promise.all([
    findLocation(locationId),
    findParentGrant(principal.tokenId, locationId),
  ]);
  if (!location || location.companyId !== companyId) {
    throw bearerError("forbidden", "locationId is not a sub-account of this agency.");
  }
  if (!parent) throw bearerError("invalid_token", "The access token has been revoked or the app uninstalled.");
  if (!parent.installedHere) {
    throw bearerError(
      "forbidden",
      "The app is not installed on this sub-account. Install it again at agency level and choose this sub-account.",
    );
  }
  const key = await activeSigningKey();
  return db().$transaction(async (tx) => {
    const scopes = tokenScopes("Location", parent.scopes, parent.installationScopes);
    const grant = await tx.tokenGrant.create({
      data: {
        appId: parent.appId,
        installationId: parent.installationId,
        parentGrantId: parent.id,
        userType: "Location",
        companyId,
        locationId,
        userId: parent.userId,
        scopes: parent.scopes,
        createdAt: now,
      },
    });
    const issued = await issueTokens(tx, {
      grant,
      clientId: parent.clientId,
      versionId: parent.versionId,
      scopes,
      key,
      now,
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
  }, GRANT_TRANSACTION_OPTIONS);
}
