import { db } from "@/lib/db/client";
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

export async function exchangeForLocationToken(options: LocationTokenRequest): Promise<Record<string, unknown>> {
  const { principal, traceId } = options;
  const now = options.now ?? new Date();
  const { companyId, locationId } = checkParams(options.form);
  if (companyId !== principal.companyId) {
    throw bearerError("forbidden", "companyId is not the agency this access token was issued for.");
  }
  const [location, source] = await Promise.all([
    db().location.findUnique({ where: { id: locationId }, select: { companyId: true } }),
    db().accessToken.findUnique({
      where: { jti: principal.tokenId },
      select: {
        grant: {
          select: {
            id: true,
            appId: true,
            installationId: true,
            userId: true,
            scopes: true,
            installation: {
              select: {
                versionId: true,
                scopes: true,
                locations: { where: { locationId }, select: { locationId: true } },
                app: { select: { clientId: true } },
              },
            },
          },
        },
      },
    }),
  ]);
  if (!location || location.companyId !== companyId) {
    throw bearerError("forbidden", "locationId is not a sub-account of this agency.");
  }
  const parent = source?.grant;
  if (!parent) throw bearerError("invalid_token", "The access token has been revoked or the app uninstalled.");
  if (parent.installation.locations.length === 0) {
    throw bearerError(
      "forbidden",
      "The app is not installed on this sub-account. Install it again at agency level and choose this sub-account.",
    );
  }
  const key = await activeSigningKey();
  return db().$transaction(async (tx) => {
    const scopes = tokenScopes("Location", parent.scopes, parent.installation.scopes);
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
      clientId: parent.installation.app.clientId,
      versionId: parent.installation.versionId,
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
