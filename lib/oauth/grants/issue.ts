import { hashSecret, randomSecret } from "@/lib/crypto/secrets";
import type { Tx } from "@/lib/db/client";
import type { UserType } from "@/lib/generated/prisma/client";
import { type ScopeLevel, scopesAtLevel } from "@/lib/scopes";
import { issueAccessToken } from "@/lib/tokens/access-token";
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

/** One access token and one refresh token of `grant`, in the caller's transaction. */
export async function issueTokens(
  tx: Tx,
  options: {
    grant: GrantForIssue;
    clientId: string;
    versionId: string;
    scopes: string[];
    key: ActiveSigningKey;
    now: Date;
  },
): Promise<IssuedTokens> {
  const { grant, now } = options;
  const refreshToken = randomSecret(32);
  const refresh = await tx.refreshToken.create({
    data: {
      tokenHash: hashSecret(refreshToken),
      grantId: grant.id,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
      createdAt: now,
    },
    select: { id: true },
  });
  const access = await issueAccessToken(tx, {
    grantId: grant.id,
    userId: grant.userId,
    clientId: options.clientId,
    versionId: options.versionId,
    authClass: grant.userType,
    companyId: grant.companyId,
    locationId: grant.locationId,
    scopes: options.scopes,
    key: options.key,
    now,
  });
  return {
    accessToken: access.accessToken,
    expiresIn: access.expiresIn,
    refreshToken,
    refreshTokenId: refresh.id,
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
  const common = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    refresh_token: issued.refreshToken,
    scope: issued.scopes.join(" "),
    refreshTokenId: issued.refreshTokenId,
    userType: grant.userType,
    companyId: grant.companyId,
  };
  if (grant.userType === "Company") {
    return {
      ...common,
      isBulkInstallation: true,
      userId: grant.userId,
      approvedLocations,
      approveAllLocations: choice.approveAllLocations,
      installToFutureLocations: choice.installToFutureLocations,
    };
  }
  return { ...common, locationId: grant.locationId, isBulkInstallation: false, userId: grant.userId };
}
