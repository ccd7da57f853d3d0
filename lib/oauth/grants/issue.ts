import { hashSecret, randomSecret } from "@/lib/crypto/secrets";
import { withInput } from "@/lib/db/fixed-statement";
import { newRowId } from "@/lib/db/row-id";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { type ScopeLevel, scopesAtLevel } from "@/lib/scopes";
import { endStage, stageTimingOn } from "@/lib/stage-timing";
import { type AccessTokenRow, newAccessTokenRow, signAccessToken } from "@/lib/tokens/access-token";
import type { ActiveSigningKey } from "@/lib/tokens/signing-keys";

/** SPEC.md: refresh tokens live 365 days. */
export const REFRESH_TOKEN_TTL_MS = 365 * 24 * 3_600_000;

/** Long enough for 20 exchanges of one code to queue on one row without a timeout turning into a 500. */
export const GRANT_TRANSACTION_OPTIONS = { maxWait: 20_000, timeout: 30_000 } as const;

export interface GrantForIssue {
  id: string;
  userType: UserType;
  companyId: string;
  locationId: string | null;
  userId: string;
  scopes: string[];
}

export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshTokenId: string;
  /** The scopes the access token carries. */
  scopes: string[];
}

export function levelOf(userType: UserType): ScopeLevel {
  return userType === "Company" ? "agency" : "location";
}

/** A token carries the granted scopes valid at its own level (SPEC.md, Scopes). */
export function tokenScopes(userType: UserType, ...grantedSets: string[][]): string[] {
  const [first = [], ...rest] = grantedSets;
  const granted = first.filter((s) => rest.every((set) => set.includes(s)));
  return scopesAtLevel(granted, levelOf(userType));
}

/**
 * One refresh token and one access token, made before the statement that writes their rows: the
 * secrets and ids are random, so a grant can consume what is presented and write its successors
 * in one statement (`issueRowsSql`), and sign the access token once that statement has answered.
 */
export interface PreparedTokens {
  now: Date;
  refreshToken: string;
  refreshTokenId: string;
  access: AccessTokenRow;
}

export function prepareTokens(now: Date): PreparedTokens {
  return { now, refreshToken: randomSecret(32), refreshTokenId: newRowId(), access: newAccessTokenRow(now) };
}

/** Dates go to SQL as ISO text cast to timestamp(3): the columns hold UTC without a zone, as Prisma writes them. */
export const sqlTime = (date: Date) => Prisma.sql`${date.toISOString()}::timestamp(3)`;

/** `sqlTime` of a date a fixed statement (lib/db/fixed-statement.ts) reads from its input. */
export const sqlTimeParam = <I>(date: (input: I) => Date) =>
  Prisma.sql`${(input: I) => date(input).toISOString()}::timestamp(3)`;

/**
 * Two data-modifying CTEs, `issued_refresh` and `issued_access`, that write the rows of `tokens`
 * for the grant whose id is the column `grantId` of each row of `source` (a CTE or subquery of the caller's
 * statement, without values, that yields one row when the grant may issue, none when it may not).
 */
export function issueRowsSql(tokens: PreparedTokens, source: Prisma.Sql): Prisma.Sql {
  return withInput(
    issueRowsTemplate(() => tokens, source),
    undefined,
  );
}

/** `issueRowsSql` for a fixed statement: the tokens are those `tokensOf` reads from its input. */
export function issueRowsTemplate<I>(tokensOf: (input: I) => PreparedTokens, source: Prisma.Sql): Prisma.Sql {
  const refreshTokenId = (input: I) => tokensOf(input).refreshTokenId;
  const refreshTokenHash = (input: I) => hashSecret(tokensOf(input).refreshToken);
  const refreshExpiresAt = sqlTimeParam((input: I) => new Date(tokensOf(input).now.getTime() + REFRESH_TOKEN_TTL_MS));
  const createdAt = sqlTimeParam((input: I) => tokensOf(input).now);
  const jti = (input: I) => tokensOf(input).access.jti;
  const accessExpiresAt = sqlTimeParam((input: I) => tokensOf(input).access.expiresAt);
  return Prisma.sql`
    issued_refresh AS (
      INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt", "createdAt")
      SELECT ${refreshTokenId}, ${refreshTokenHash}, s."grantId",
             ${refreshExpiresAt}, ${createdAt}
      FROM ${source} s
      RETURNING id
    ),
    issued_access AS (
      INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
      SELECT ${jti}, s."grantId", ${accessExpiresAt}, ${createdAt}
      FROM ${source} s
      RETURNING jti
    )`;
}

/** Signs the access token whose row the statement wrote, for `grant` (synchronously: node:crypto signs). */
export function finishTokens(
  tokens: PreparedTokens,
  options: { grant: GrantForIssue; clientId: string; versionId: string; scopes: string[]; key: ActiveSigningKey },
): IssuedTokens {
  const { grant } = options;
  const signing = stageTimingOn ? performance.now() : 0;
  const access = signAccessToken(
    tokens.access,
    {
      userId: grant.userId,
      clientId: options.clientId,
      versionId: options.versionId,
      authClass: grant.userType,
      companyId: grant.companyId,
      locationId: grant.locationId,
      scopes: options.scopes,
    },
    options.key,
  );
  if (stageTimingOn) endStage("sign", signing);
  return {
    accessToken: access.accessToken,
    expiresIn: access.expiresIn,
    refreshToken: tokens.refreshToken,
    refreshTokenId: tokens.refreshTokenId,
    scopes: options.scopes,
  };
}

/** What an agency install chose: the Company token response reports it. */
export interface AgencyInstallChoice {
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
}

/** The 200 body of /oauth/token, exactly SPEC.md's table for Company and Location tokens. */
export function tokenResponse(
  issued: IssuedTokens,
  grant: GrantForIssue,
  approvedLocations: string[],
  choice: AgencyInstallChoice = { approveAllLocations: false, installToFutureLocations: false },
): Record<string, unknown> {
  // Written out per type, without spreads: one object shape each, on every grant.
  const { accessToken: access_token, expiresIn: expires_in, refreshToken: refresh_token, refreshTokenId } = issued;
  const { userType, companyId, userId } = grant;
  const token_type = "Bearer";
  const scope = issued.scopes.join(" ");
  if (userType === "Company") {
    const { approveAllLocations, installToFutureLocations } = choice;
    return {
      access_token,
      token_type,
      expires_in,
      refresh_token,
      scope,
      refreshTokenId,
      userType,
      companyId,
      isBulkInstallation: true,
      userId,
      approvedLocations,
      approveAllLocations,
      installToFutureLocations,
    };
  }
  const { locationId } = grant;
  return {
    access_token,
    token_type,
    expires_in,
    refresh_token,
    scope,
    refreshTokenId,
    userType,
    companyId,
    locationId,
    isBulkInstallation: false,
    userId,
  };
}
