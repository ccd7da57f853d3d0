// The one statement of a rotating refresh (./refresh-token.ts), run as a server-side function.
import { hashSecret } from "@/lib/crypto/secrets";
import { FixedStatement } from "@/lib/db/fixed-statement";
import { runHotStatement } from "@/lib/db/hot-statement";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { secretStillAcceptedSql } from "../client-secret";
import type { GrantContext } from "./authorization-code";
import { issueRowsTemplate, type PreparedTokens, sqlTimeParam } from "./issue";

/**
 * The reuse window (SPEC.md), as the statement tests it: a used token may be presented again when
 * its first use (`consumedAt`) is after this moment, i.e. strictly less than `windowSeconds`
 * before `now`. Null when the window is off (0). An instance whose clock is behind the one that
 * recorded the first use sees it in the future, which is inside too.
 */
export function reuseCutoff(now: Date, windowSeconds: number): Date | null {
  return windowSeconds <= 0 ? null : new Date(now.getTime() - windowSeconds * 1000);
}

/** Why the statement issued nothing, in the order the checks are made (first failing one). */
type RefreshRefusal =
  | "client_changed"
  | "other_client"
  | "reused"
  | "expired"
  | "revoked"
  | "uninstalled"
  | "user_type";

export interface RedemptionRow {
  /** Null when no refresh token has this hash. */
  refusal: RefreshRefusal | null;
  found: boolean;
  issued: boolean;
  grantId: string | null;
  userType: UserType | null;
  companyId: string;
  locationId: string | null;
  userId: string;
  scopes: string[];
  consumedAt: Date | null;
  versionId: string;
  installationScopes: string[];
  approvedLocations: string[];
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
}

/** What one refresh's statement reads: its values. */
interface Redemption {
  tokenHash: string;
  appId: string;
  /** Null for a client authenticated by a key: nothing to check. */
  secretHash: string | null;
  /** ISO text, or null when the reuse window is off. */
  cutoff: string | null;
  userType: UserType | null;
  now: Date;
  tokens: PreparedTokens;
}

/**
 * Consumes the presented refresh token and writes its successors in ONE statement, whose locks
 * decide every race (nothing is decided on an earlier read):
 * - `family`: the grant of the token with this hash, locked FOR SHARE first (the order a
 *   revocation locks in). A revocation (reuse, RFC 7009, uninstall) that committed first is seen in
 *   the row's newest version and refused; one that comes later waits for this statement and then
 *   revokes what it issued too. Refreshes of one family share the lock and do not wait on each other.
 * - `used`: the token, locked FOR UPDATE after the grant: a first use in flight elsewhere is waited
 *   for, and its committed `consumedAt` is what this statement reads (a locking read returns the
 *   newest version). Never used: this is the first use and `consumed` records it. Used inside the
 *   window by this client: a replay that gets a pair of its own. Used before that: reuse, nothing
 *   written, and the caller revokes the family.
 * - `client`: the app still accepts the secret hash the client authenticated with, the current
 *   secret's or the previous one's inside its overlap (client authentication may answer from the
 *   read cache: see client-auth.ts and client-secret.ts).
 * Each step reads only what the next needs, as few materialized steps as the locks allow: this is
 * the statement of every refresh, and PostgreSQL's CPU per refresh is shared with the server's.
 * Its text is built once (lib/db/fixed-statement.ts) and is the body of the function below (hence
 * `INTO result`: it is not sent on its own); a refresh sends only its values.
 */
const redemption = new FixedStatement<Redemption>(() => {
  const value = (key: keyof Redemption) => (input: Redemption) => input[key];
  const now = sqlTimeParam((input: Redemption) => input.now);
  const issueRows = issueRowsTemplate(
    (input: Redemption) => input.tokens,
    Prisma.sql`(SELECT "grantId" FROM decision WHERE refusal IS NULL)`,
  );
  return Prisma.sql`
    WITH family AS MATERIALIZED (
      SELECT g.id AS "grantId", g."appId", g."installationId", g."userType"::text AS "userType", g."companyId",
             g."locationId", g."userId", g.scopes, g."revokedAt"
      FROM "TokenGrant" g
      WHERE g.id = (SELECT r."grantId" FROM "RefreshToken" r WHERE r."tokenHash" = ${value("tokenHash")})
      FOR SHARE
    ),
    used AS MATERIALIZED (
      SELECT r.id, r."consumedAt", r."expiresAt" FROM "RefreshToken" r
      WHERE r."tokenHash" = ${value("tokenHash")} AND r."grantId" = (SELECT "grantId" FROM family)
      FOR UPDATE
    ),
    client AS MATERIALIZED (
      SELECT NOT EXISTS (
        SELECT 1 FROM "App" a
        WHERE a.id = ${value("appId")} AND ${secretStillAcceptedSql("a", value("secretHash"), now)}
      ) AS changed
    ),
    decision AS MATERIALIZED (
      SELECT u.id, u."consumedAt", f.*, i."versionId", i.scopes AS "installationScopes",
             i."approveAllLocations", i."installToFutureLocations",
             CASE
               WHEN c.changed THEN 'client_changed'
               WHEN f."appId" <> ${value("appId")} THEN 'other_client'
               WHEN u."consumedAt" IS NOT NULL
                    AND NOT COALESCE(u."consumedAt" > ${value("cutoff")}::timestamp(3), false) THEN 'reused'
               WHEN u."expiresAt" <= ${now} THEN 'expired'
               WHEN f."revokedAt" IS NOT NULL THEN 'revoked'
               WHEN i.status <> 'installed' THEN 'uninstalled'
               WHEN ${value("userType")}::text IS NOT NULL AND f."userType" <> ${value("userType")}::text THEN 'user_type'
             END AS refusal
      FROM used u
      JOIN family f ON true
      JOIN "Installation" i ON i.id = f."installationId"
      CROSS JOIN client c
    ),
    consumed AS (
      UPDATE "RefreshToken" r SET "consumedAt" = ${now}
      FROM decision s
      WHERE r.id = s.id AND s.refusal IS NULL AND s."consumedAt" IS NULL AND r."consumedAt" IS NULL
      RETURNING r.id
    ),
    ${issueRows}
    SELECT to_json(r) INTO result FROM (
    SELECT d.id IS NOT NULL AS found,
           COALESCE(d.refusal, CASE WHEN c.changed THEN 'client_changed' END) AS refusal,
           EXISTS (SELECT 1 FROM issued_access) AS issued,
           d."grantId", d."userType", d."companyId", d."locationId", d."userId", d.scopes, d."consumedAt",
           d."versionId", d."installationScopes", d."approveAllLocations", d."installToFutureLocations",
           -- Only a Company token's answer lists the approved sub-accounts (tokenResponse).
           CASE WHEN d."userType" = 'Company' THEN
             ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                   WHERE l."installationId" = d."installationId" ORDER BY l."locationId")
           ELSE '{}'::text[] END AS "approvedLocations"
    FROM client c LEFT JOIN decision d ON true
    ) r`;
});

/** The function's name: a migration (re)defines it with `redemptionFunctionSql()`'s text. */
export const REDEMPTION_FUNCTION = "redeem_refresh_token";

/**
 * The redemption as a PL/pgSQL function, `redemption`'s text with $1…$n as its parameters p1…pn
 * (all text: the statement casts each where it needs another type). Its statement runs as it
 * would alone (a snapshot of its own, READ COMMITTED), so its locks decide the same races. A
 * function's statements keep their plans in the backend that ran them, across transactions:
 * behind a transaction-mode pooler, where no prepared statement outlives its transaction, the long
 * statement is then not parsed and planned on every refresh, which cost PostgreSQL more than
 * running it; called straight it costs about what the named statement did (bench-results.md ›
 * Figures the code rests on). One name for every version: a rolling deploy whose statement changes
 * must keep the row's shape.
 */
export function redemptionFunctionSql(): string {
  const params = placeholders(redemption.valueCount, (n) => `p${n} text`);
  const body = redemption.textNaming((n) => `p${n}`).trim();
  const source = `DECLARE result json;
BEGIN
  ${body};
  RETURN result;
END`;
  return `CREATE OR REPLACE FUNCTION "${REDEMPTION_FUNCTION}"(${params}) RETURNS json LANGUAGE plpgsql VOLATILE
  AS U&'${unicodeEscaped(source)}';
`;
}

/**
 * The text of a U&'…' literal: quotes doubled, and no semicolon or backslash as itself. Prisma's
 * schema engine splits a migration at every semicolon, dollar-quoted or not (as the other
 * functions of prisma/migrations are written).
 */
function unicodeEscaped(text: string): string {
  return text.replaceAll("\\", "\\005C").replaceAll(";", "\\003B").replaceAll("'", "''");
}

let call: string | undefined;

/** `SELECT "redeem_refresh_token"($1, …, $n)`: one text, built once. */
function redemptionCall(): string {
  call ??= `SELECT "${REDEMPTION_FUNCTION}"(${placeholders(redemption.valueCount, (n) => `$${n}`)}) AS redemption`;
  return call;
}

const placeholders = (count: number, name: (n: number) => string) =>
  Array.from({ length: count }, (_, i) => name(i + 1)).join(", ");

/** Runs the redemption for one refresh: one statement, one row. */
export function redeem(
  token: string,
  userType: UserType | undefined,
  ctx: GrantContext,
  tokens: PreparedTokens,
  windowSeconds: number,
): Promise<RedemptionRow> {
  const { now } = ctx;
  const values = redemption.values({
    tokenHash: hashSecret(token),
    appId: ctx.client.app.id,
    secretHash: ctx.client.secretHash,
    cutoff: reuseCutoff(now, windowSeconds)?.toISOString() ?? null,
    userType: userType ?? null,
    now,
    tokens,
  });
  // Every refresh runs it: past Prisma's runtime on PostgreSQL (lib/db/hot-statement.ts).
  return runHotStatement<{ redemption: unknown }>(redemptionCall(), values).then((rows) =>
    redemptionRow(rows[0]?.redemption),
  );
}

/**
 * The function's JSON (parsed by pg and by Prisma alike) as a row: `consumedAt`, a timestamp in
 * UTC that JSON writes without a zone, made a Date in place.
 */
function redemptionRow(json: unknown): RedemptionRow {
  const row = json as Omit<RedemptionRow, "consumedAt"> & { consumedAt: string | Date | null };
  if (typeof row.consumedAt === "string") row.consumedAt = new Date(`${row.consumedAt}Z`);
  return row as RedemptionRow;
}
