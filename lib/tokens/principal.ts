import type { Scope } from "@/lib/scopes";

/**
 * Who is calling the API: what one Bearer token proves once verified. Both token kinds (ES256
 * access tokens and `pit-` private-integration tokens) verify into this one shape, and every API
 * rule decides on it alone.
 */
export interface Principal {
  kind: "access_token" | "private_integration";
  /** Company = agency level, Location = sub-account level. */
  authClass: "Company" | "Location";
  companyId: string;
  /** Set for Location principals. */
  locationId?: string;
  scopes: Scope[];
  /** Access tokens: the app. */
  appId?: string;
  /** Access tokens: the installation the token's grant belongs to (whose usage it counts). */
  installationId?: string;
  /** Access tokens: the installing user (JWT `sub`). */
  userId?: string;
  /** Private integrations: the integration. */
  integrationId?: string;
  /** The jti of the access token, or the id of the private-integration token row. */
  tokenId: string;
  /** When the token stops working (access token exp; the old token's end during a rotation). */
  expiresAt?: Date;
  /** Agency private integrations with chosen `Sub-accounts`: the only ones it may act on (unset: all). */
  allowedLocationIds?: string[];
}

/** The sub-account a Location principal acts in; undefined for agency-level (Company) principals. */
export function locationOf(principal: Principal): string | undefined {
  return principal.authClass === "Location" ? principal.locationId : undefined;
}

/** The rate-limit bucket of a principal: per app or integration, per sub-account or agency. */
export function rateLimitSubject(principal: Principal): string {
  const owner = principal.kind === "access_token" ? `app:${principal.appId}` : `pit:${principal.integrationId}`;
  const account =
    principal.authClass === "Location" ? `location:${principal.locationId}` : `company:${principal.companyId}`;
  return `${owner}|${account}`;
}

/**
 * A refusal that carries its own words: the error code (`invalid_token` where the token is dead,
 * `forbidden` where it is only held back) and a description that says why and what to do.
 */
export interface TokenRefusal {
  code: "invalid_token" | "forbidden";
  description: string;
}

/**
 * What verifying one Bearer token says; `reason` picks the error description, never more. A
 * private integration's guard rail (lib/integrations/guard-rails.ts) refuses with its own answer.
 */
export type VerifyResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: "malformed" | "unknown" | "expired" | "revoked"; integrationId?: string }
  | {
      ok: false;
      reason: "refused";
      refusal: TokenRefusal;
      /** The integration whose token was refused (its usage counts the refusal). */
      integrationId?: string;
    };
