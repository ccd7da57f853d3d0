import { hitRateLimit, rateLimitedError } from "@/lib/api/rate-limit";
import { FixedStatement } from "@/lib/db/fixed-statement";
import { runHotStatement } from "@/lib/db/hot-statement";
import { newRowId } from "@/lib/db/row-id";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { newAccessTokenRow, signAccessToken } from "@/lib/tokens/access-token";
import { activeSigningKey, activeSigningKeyNow } from "@/lib/tokens/signing-keys";
import { assertionRefusals, type PendingAssertion } from "../client-assertion";
import { invalidGrant, invalidRequest, unauthorizedClient } from "../errors";
import type { GrantContext } from "./authorization-code";
import { sqlTimeParam, tokenScopes } from "./issue";

/**
 * grant_type=client_credentials with `companyId` or `locationId` (SPEC.md › Apps that never lose an
 * install): an installation token, the way back for an app that lost its tokens. Only a client that
 * authenticated with one of its keys (private_key_jwt) may ask: a client secret is a weaker
 * credential, shared by every server of the app, and it must not reach every installation alone.
 *
 * The token is an access token of the installation, with its current approved scopes at the
 * token's level, for 1 hour, and no refresh token: a new one is asked for the same way. Its grant
 * belongs to the installation, so an uninstall revokes it with every other. Each request is
 * counted by the API's rate limits in the bucket its token's API calls use (the app on that agency
 * or sub-account), as /oauth/locationToken is.
 */

export const INSTALLATION_TOKEN_TTL_SECONDS = 3600;

function checkParams(form: Record<string, string>): { userType: UserType; companyId?: string; locationId?: string } {
  const { companyId, locationId } = form;
  if (companyId && locationId) {
    throw invalidRequest("Send companyId (for a Company token) or locationId (for a Location token), not both.");
  }
  if (locationId) return { userType: "Location", locationId };
  if (companyId) return { userType: "Company", companyId };
  throw invalidRequest(
    "companyId or locationId is required: the agency or sub-account of the installation to get a token for.",
  );
}

interface IssueRow {
  refusal: "key_removed" | "replayed" | "not_installed" | "uninstalled" | "not_chosen" | null;
  companyId: string | null;
  userId: string | null;
  versionId: string | null;
  scopes: string[] | null;
  uninstalledAt: Date | string | null;
}

/** What one installation token's statement reads: its values. */
interface Issue {
  assertion: PendingAssertion;
  appId: string;
  userType: UserType;
  companyId: string | null;
  locationId: string | null;
  grantId: string;
  jti: string;
  expiresAt: Date;
  now: Date;
}

/**
 * Consumes the client assertion's `jti`, finds the installation and writes the grant and its
 * access token in ONE statement (one round trip per installation token):
 * - `key`: the assertion's key, as in `consumeAssertion` (../client-assertion.ts: found in the
 *   statement's snapshot, not locked); `recorded`: the `jti`, accepted once across instances by its
 *   unique key; nothing below runs unless both hold.
 * - `installation`: read FOR SHARE, and for a Location token of an agency install so is the chosen
 *   sub-account: an uninstall (or a re-install that drops the sub-account) that committed first is
 *   seen and refused; one that comes later waits for this statement and then revokes its grant too
 *   (lib/oauth/grants/revoke-grants.ts reads grants after locking the installation). A
 *   sub-account's own install of the app is preferred to an agency install that covers it.
 * Its text is built once (lib/db/fixed-statement.ts) and run past Prisma's runtime like the
 * refresh's (lib/db/hot-statement.ts).
 */
const issuance = new FixedStatement<Issue>(() => {
  const value = (read: (input: Issue) => unknown) => read;
  const appId = value((i) => i.appId);
  const locationId = value((i) => i.locationId);
  const now = sqlTimeParam((i: Issue) => i.now);
  return Prisma.sql`
    WITH key AS MATERIALIZED (
      SELECT id, "lastUsedAt" FROM "AppKey"
      WHERE id = ${value((i) => i.assertion.keyId)}::text AND "appId" = ${appId}::text
    ),
    recorded AS MATERIALIZED (
      INSERT INTO "ClientAssertion" ("appId", jti, "expiresAt")
      SELECT ${appId}::text, ${value((i) => i.assertion.jti)}::text,
             ${sqlTimeParam((i: Issue) => i.assertion.expiresAt)}
      FROM key
      ON CONFLICT DO NOTHING
      RETURNING 1
    ),
    noted AS (
      UPDATE "AppKey" k SET "lastUsedAt" = ${now}, "lastUsedKid" = ${value((i) => i.assertion.kid)}::text
      FROM key
      WHERE k.id = key.id AND EXISTS (SELECT 1 FROM recorded)
        AND (key."lastUsedAt" IS NULL OR key."lastUsedAt" < ${sqlTimeParam((i: Issue) => i.assertion.lastUsedBefore)})
      RETURNING 1
    ),
    installation AS MATERIALIZED (
      SELECT i.id, i.status::text AS status, i."userType"::text AS "installedAs", i."companyId", i."versionId",
             i.scopes, i."installedByUserId", i."uninstalledAt"
      FROM "Installation" i
      WHERE EXISTS (SELECT 1 FROM recorded)
        AND i."installKey" IN (
          ${appId}::text || ':Company:' || COALESCE(${value((i) => i.companyId)}::text,
            (SELECT l."companyId" FROM "Location" l WHERE l.id = ${locationId}::text)),
          ${appId}::text || ':Location:' || ${locationId}::text
        )
      ORDER BY (i.status = 'installed') DESC, (i."userType" = 'Location') DESC
      LIMIT 1
      FOR SHARE
    ),
    chosen AS MATERIALIZED (
      SELECT 1 FROM "InstallationLocation" c
      WHERE c."installationId" = (SELECT id FROM installation) AND c."locationId" = ${locationId}::text
      FOR SHARE
    ),
    decision AS MATERIALIZED (
      SELECT i.*,
             CASE
               WHEN i.status <> 'installed' THEN 'uninstalled'
               WHEN ${locationId}::text IS NOT NULL AND i."installedAs" = 'Company'
                    AND NOT EXISTS (SELECT 1 FROM chosen) THEN 'not_chosen'
             END AS refusal
      FROM installation i
    ),
    issued_grant AS (
      INSERT INTO "TokenGrant" (id, "appId", "installationId", "userType", "companyId", "locationId", "userId",
                                scopes, "installationToken", "createdAt")
      SELECT ${value((i) => i.grantId)}::text, ${appId}::text, d.id, ${value((i) => i.userType)}::text::"UserType",
             d."companyId", ${locationId}::text, d."installedByUserId", d.scopes, true, ${now}
      FROM decision d WHERE d.refusal IS NULL
      RETURNING id
    ),
    issued_access AS (
      INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
      SELECT ${value((i) => i.jti)}::text, g.id, ${sqlTimeParam((i: Issue) => i.expiresAt)}, ${now}
      FROM issued_grant g
      RETURNING jti
    )
    SELECT CASE
             WHEN NOT EXISTS (SELECT 1 FROM key) THEN 'key_removed'
             WHEN NOT EXISTS (SELECT 1 FROM recorded) THEN 'replayed'
             ELSE COALESCE(d.refusal, CASE WHEN d.id IS NULL THEN 'not_installed' END)
           END AS refusal,
           d."companyId", d."installedByUserId" AS "userId", d."versionId", d.scopes, d."uninstalledAt"
    FROM (SELECT 1) one LEFT JOIN decision d ON true`;
});

const where = (params: { companyId?: string; locationId?: string }) =>
  params.locationId ? `sub-account ${params.locationId.slice(0, 60)}` : `agency ${params.companyId?.slice(0, 60)}`;

export async function clientCredentialsGrant(ctx: GrantContext): Promise<Record<string, unknown>> {
  const { client, now } = ctx;
  if (client.method !== "private_key_jwt") {
    throw unauthorizedClient(
      "client_credentials needs a key: authenticate with private_key_jwt (a client_assertion signed by one of the app's keys, added on the app's page under Keys), not the client secret.",
      "client_credentials with a secret",
    );
  }
  const params = checkParams(ctx.form);
  const account = params.locationId ? `location:${params.locationId}` : `company:${params.companyId}`;
  const decision = await hitRateLimit(`app:${client.app.id}|${account}`, { now });
  if (!decision.allowed) throw rateLimitedError(decision);
  const key = activeSigningKeyNow(now) ?? (await activeSigningKey(now));
  const access = newAccessTokenRow(now, INSTALLATION_TOKEN_TTL_SECONDS);
  const assertion = client.assertion;
  if (!assertion) throw new Error("client_credentials needs the client's assertion left to its statement.");
  const values = issuance.values({
    assertion,
    appId: client.app.id,
    userType: params.userType,
    companyId: params.companyId ?? null,
    locationId: params.locationId ?? null,
    grantId: newRowId(),
    jti: access.jti,
    expiresAt: access.expiresAt,
    now,
  });
  const row = (await runHotStatement<IssueRow>(issuance.text, values))[0] as IssueRow;
  switch (row.refusal) {
    case "key_removed":
      throw assertionRefusals.keyRemoved(assertion.kid);
    case "replayed":
      throw assertionRefusals.replayed();
    case "not_installed":
      throw invalidGrant(
        `The app is not installed on ${where(params)}. Only an installation the app has can give it a token.`,
        "client_credentials not installed",
      );
    case "uninstalled": {
      const since = row.uninstalledAt ? ` on ${new Date(row.uninstalledAt).toISOString().slice(0, 10)}` : "";
      throw invalidGrant(
        `The app was uninstalled from ${where(params)}${since}. It can get tokens there again once it is installed again.`,
        "client_credentials uninstalled",
      );
    }
    case "not_chosen":
      throw invalidGrant(
        `The app's agency install does not include ${where(params)}. An agency admin can add it by installing the app again and choosing it.`,
        "client_credentials sub-account not chosen",
      );
  }
  if (!row.companyId || !row.userId || !row.versionId || !row.scopes) {
    throw new Error("The installation-token statement neither issued nor named a refusal.");
  }
  const scopes = tokenScopes(params.userType, row.scopes);
  const issued = signAccessToken(
    access,
    {
      userId: row.userId,
      clientId: client.app.clientId,
      versionId: row.versionId,
      authClass: params.userType,
      companyId: row.companyId,
      locationId: params.locationId ?? null,
      scopes,
    },
    key,
  );
  const common = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    scope: scopes.join(" "),
    userType: params.userType,
    companyId: row.companyId,
  };
  return params.locationId ? { ...common, locationId: params.locationId } : common;
}
