import { findLocation } from "@/lib/accounts/locations";
import { bearerError } from "@/lib/api/bearer";
import { db, type Tx } from "@/lib/db/client";
import type { Principal } from "@/lib/tokens/principal";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { invalidRequest } from "./errors";
import { GRANT_TRANSACTION_OPTIONS, issueTokens, tokenScopes } from "./grants/issue";

/**
 * POST /oauth/locationToken: a Company token of an agency install buys a Location token for one
 * of the sub-accounts the app was installed on. Each exchange is a new grant, child of the
 * Company token's grant, so revoking or uninstalling takes it down too, also when the revocation
 * runs at the same time as the exchange (see `lockParent`).
 */

export interface LocationTokenRequest {
  principal: Principal;
  form: Record<string, string>;
  traceId: string;
  now?: Date;
  /** Tests only: steps injected where a concurrent revocation can fall (location-token.race.test.ts). */
  pauses?: ExchangePauses;
}

export interface ExchangePauses {
  /** After the checks made before the transaction, before it begins. */
  afterChecks?: () => Promise<void>;
  /** Inside the transaction, after its writes, just before it commits. */
  beforeCommit?: (tx: Tx) => Promise<void>;
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
  clientId: string;
  /** Whether the agency install chose the requested sub-account. */
  installedHere: boolean;
}

/** The grant of the Company token, with what the exchange needs: one statement. */
async function findParentGrant(jti: string, locationId: string): Promise<ParentGrant | undefined> {
  const rows = await db().$queryRaw<ParentGrant[]>`
    SELECT g.id, g."appId", g."installationId", g."userId", a."clientId",
           EXISTS (SELECT 1 FROM "InstallationLocation" l
                   WHERE l."installationId" = i.id AND l."locationId" = ${locationId}) AS "installedHere"
    FROM "AccessToken" t
    JOIN "TokenGrant" g ON g.id = t."grantId"
    JOIN "Installation" i ON i.id = g."installationId"
    JOIN "App" a ON a.id = i."appId"
    WHERE t.jti = ${jti}`;
  return rows[0];
}

const revokedParent = () => bearerError("invalid_token", "The access token has been revoked or the app uninstalled.");
const notInstalledHere = () =>
  bearerError(
    "forbidden",
    "The app is not installed on this sub-account. Install it again at agency level and choose this sub-account.",
  );

/** What the child grant is issued from, as it stands under the locks. */
interface LockedParent {
  scopes: string[];
  versionId: string;
  installationScopes: string[];
}

/**
 * Re-checks, inside the issuing transaction and under FOR SHARE locks, what the first checks
 * read: the installation is installed, the parent grant is not revoked, the sub-account is still
 * chosen. The locks make every revocation that touches these rows wait for this transaction's
 * commit (uninstall and re-install update the installation, a family revocation updates the
 * grant), and it then revokes the child too (grants/revoke-grants.ts); a revocation that
 * committed first is seen here and the exchange refuses. Locks are taken in the order those
 * writers take theirs (installation, grants, sub-accounts), so none can deadlock with an exchange.
 * Separate statements on purpose: each sees what committed while it waited for the one before.
 */
async function lockParent(tx: Tx, parent: ParentGrant, locationId: string): Promise<LockedParent> {
  const [installation] = await tx.$queryRaw<{ status: string; versionId: string; scopes: string[] }[]>`
    SELECT status::text AS status, "versionId", scopes FROM "Installation"
    WHERE id = ${parent.installationId} FOR SHARE`;
  if (installation?.status !== "installed") throw revokedParent();
  const [grant] = await tx.$queryRaw<{ revokedAt: Date | null; scopes: string[] }[]>`
    SELECT "revokedAt", scopes FROM "TokenGrant" WHERE id = ${parent.id} FOR SHARE`;
  if (!grant || grant.revokedAt !== null) throw revokedParent();
  const chosen = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM "InstallationLocation"
    WHERE "installationId" = ${parent.installationId} AND "locationId" = ${locationId} FOR SHARE`;
  if (chosen.length === 0) throw notInstalledHere();
  return { scopes: grant.scopes, versionId: installation.versionId, installationScopes: installation.scopes };
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
  // Refusals that need no lock; all of it is checked again under locks in the transaction.
  if (!parent) throw revokedParent();
  if (!parent.installedHere) throw notInstalledHere();
  const key = await activeSigningKey();
  await options.pauses?.afterChecks?.();
  return db().$transaction(async (tx) => {
    const locked = await lockParent(tx, parent, locationId);
    const scopes = tokenScopes("Location", locked.scopes, locked.installationScopes);
    const grant = await tx.tokenGrant.create({
      data: {
        appId: parent.appId,
        installationId: parent.installationId,
        parentGrantId: parent.id,
        userType: "Location",
        companyId,
        locationId,
        userId: parent.userId,
        scopes: locked.scopes,
        createdAt: now,
      },
    });
    const issued = await issueTokens(tx, {
      grant,
      clientId: parent.clientId,
      versionId: locked.versionId,
      scopes,
      key,
      now,
    });
    await options.pauses?.beforeCommit?.(tx);
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
