import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { Prisma } from "@/lib/generated/prisma/client";
import type { CodeRow, GrantContext } from "./authorization-code";
import { issueRowsSql, newRowId, type PreparedTokens, sqlTime } from "./issue";

export type Redemption =
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
export async function redeem(row: CodeRow, ctx: GrantContext, tokens: PreparedTokens): Promise<Redemption> {
  const { now } = ctx;
  const installation = row.installation;
  const rows = await db().$queryRaw<
    { clientOk: boolean; installed: boolean; grantId: string | null; scopes: string[] | null }[]
  >`${PREPARED}
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
