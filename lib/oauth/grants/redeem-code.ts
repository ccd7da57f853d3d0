import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { newRowId } from "@/lib/db/row-id";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { secretStillAcceptedSql } from "../client-secret";
import type { GrantContext } from "./authorization-code";
import { issueRowsSql, type PreparedTokens, sqlTime } from "./issue";

/** Why the statement issued nothing, in the order the checks are made (the first failing one). */
export type CodeRefusal =
  | "client_changed"
  | "other_client"
  | "consumed"
  | "expired"
  | "redirect_uri"
  | "pkce_missing"
  | "pkce_mismatch"
  | "pkce_unexpected"
  | "user_type"
  | "uninstalled";

/** What the exchange presented, checked by the statement. */
export interface PresentedCode {
  codeHash: string;
  /** Absent: the installation's level is used (SPEC.md: RFC 6749 clients send no user_type). */
  userType: UserType | undefined;
  redirectUri: string | undefined;
  /** BASE64URL(SHA256(code_verifier)) (RFC 7636 §4.6), or null when no verifier was sent. */
  verifierChallenge: string | null;
}

export interface CodeRedemption {
  /** False when no code has this hash. */
  found: boolean;
  refusal: CodeRefusal | null;
  codeId: string | null;
  /** Whether the installation was still installed under its share lock (false when a check failed first). */
  installed: boolean;
  grantId: string | null;
  scopes: string[] | null;
  userId: string;
  userType: UserType;
  companyId: string;
  locationId: string | null;
  versionId: string;
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
  locations: string[];
}

/**
 * Finds the code, checks it, consumes it and writes its grant and first tokens in ONE statement:
 * - `decision` names the first failing check, in the order authorization-code.ts lists them. It
 *   reads without locks; what can change under it is settled by the locks below. PKCE compares
 *   hashes with plain equality: the challenge is public (it travelled in the install URL), and
 *   knowing how much of SHA-256(guess) matches it brings no one closer to the verifier.
 * - `installation` is read FOR SHARE: an uninstall in flight (it locks the installation first,
 *   then revokes by installation) makes this statement wait and then see it gone, so no grant
 *   outlives an uninstall.
 * - `consumed` is the single use: a conditional UPDATE. Of requests racing with one code, the row
 *   lock lets one through and the others find it consumed (a replay).
 * - The grant holds the scopes the code and the installation both hold now: a re-install since the
 *   code was issued may have narrowed the installation (as refresh and /oauth/locationToken do).
 * - `client`: the app still accepts the secret hash the client authenticated with, the current
 *   secret's or the previous one's inside its overlap (client authentication may answer from the
 *   read cache: see client-auth.ts and client-secret.ts).
 */
export async function redeemCode(
  presented: PresentedCode,
  ctx: GrantContext,
  tokens: PreparedTokens,
): Promise<CodeRedemption> {
  const { now } = ctx;
  const rows = await db().$queryRaw<CodeRedemption[]>`${PREPARED}
    WITH client AS MATERIALIZED (
      SELECT EXISTS (
        SELECT 1 FROM "App" a
        WHERE a.id = ${ctx.client.app.id} AND ${secretStillAcceptedSql("a", ctx.client.secretHash, sqlTime(now))}
      ) AS ok
    ),
    decision AS MATERIALIZED (
      SELECT c.id, c."appId", c."userId", c."installationId", i."userType"::text AS "userType", i."companyId",
             i."locationId", i."versionId", i."approveAllLocations", i."installToFutureLocations",
             CASE
               WHEN NOT cl.ok THEN 'client_changed'
               WHEN c."appId" <> ${ctx.client.app.id} THEN 'other_client'
               WHEN c."consumedAt" IS NOT NULL THEN 'consumed'
               WHEN c."expiresAt" <= ${sqlTime(now)} THEN 'expired'
               WHEN ${presented.redirectUri ?? null}::text IS NOT NULL
                    AND ${presented.redirectUri ?? null}::text <> c."redirectUri" THEN 'redirect_uri'
               WHEN c."codeChallenge" IS NOT NULL AND ${presented.verifierChallenge}::text IS NULL THEN 'pkce_missing'
               WHEN c."codeChallenge" IS NOT NULL
                    AND ${presented.verifierChallenge}::text <> c."codeChallenge" THEN 'pkce_mismatch'
               WHEN c."codeChallenge" IS NULL AND ${presented.verifierChallenge}::text IS NOT NULL THEN 'pkce_unexpected'
               WHEN ${presented.userType ?? null}::text IS NOT NULL
                    AND i."userType"::text <> ${presented.userType ?? null}::text THEN 'user_type'
               WHEN i.status <> 'installed' THEN 'uninstalled'
             END AS refusal
      FROM "AuthorizationCode" c
      JOIN "Installation" i ON i.id = c."installationId"
      CROSS JOIN client cl
      WHERE c."codeHash" = ${presented.codeHash}
    ),
    installation AS MATERIALIZED (
      SELECT i.id, i.scopes FROM "Installation" i
      WHERE i.id = (SELECT "installationId" FROM decision WHERE refusal IS NULL) AND i.status = 'installed'
      FOR SHARE
    ),
    consumed AS (
      UPDATE "AuthorizationCode" c SET "consumedAt" = ${sqlTime(now)}
      FROM installation i
      WHERE c.id = (SELECT id FROM decision) AND c."consumedAt" IS NULL
      RETURNING c.id,
        ARRAY(SELECT s FROM unnest(c.scopes) WITH ORDINALITY AS x(s, n) WHERE s = ANY(i.scopes) ORDER BY n) AS scopes
    ),
    issuable AS MATERIALIZED (
      INSERT INTO "TokenGrant" (id, "appId", "installationId", "authorizationCodeId", "userType", "companyId",
                                "locationId", "userId", scopes, "createdAt")
      SELECT ${newRowId()}, d."appId", d."installationId", c.id, d."userType"::"UserType", d."companyId",
             d."locationId", d."userId", c.scopes, ${sqlTime(now)}
      FROM consumed c CROSS JOIN decision d
      RETURNING id AS "grantId", scopes
    ),
    ${issueRowsSql(tokens, Prisma.sql`issuable`)}
    SELECT d.id IS NOT NULL AS found, d.refusal, d.id AS "codeId",
           EXISTS (SELECT 1 FROM installation) AS installed, g."grantId", g.scopes,
           d."userId", d."userType", d."companyId", d."locationId", d."versionId", d."approveAllLocations",
           d."installToFutureLocations",
           ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                 WHERE l."installationId" = d."installationId" ORDER BY l."locationId") AS locations
    FROM (SELECT 1) one LEFT JOIN decision d ON true LEFT JOIN issuable g ON true`;
  return rows[0] as CodeRedemption;
}
