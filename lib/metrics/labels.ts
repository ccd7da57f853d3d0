/**
 * Every label value the metrics may carry comes from a fixed list here (SPEC.md: no label holds a
 * token, an id, an e-mail or an address), and anything else is counted as `other`. Each family's
 * counts live at an index computed from these lists, so counting a request builds no string.
 */

export const OTHER = "other";

/** The methods a request may have; any other method is `other`. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", OTHER] as const;

/** `METHODS`' index of `method`. A switch: node:http hands over the parser's own method strings. */
export function methodIndex(method: string | undefined): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "PATCH":
      return 4;
    case "DELETE":
      return 5;
    case "OPTIONS":
      return 6;
    default:
      return 7;
  }
}

/** A status as a label: a whole number from 100 to 599, else 0 (shown as `other`). */
export function statusKey(status: number): number {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? status : 0;
}

/**
 * A route's folder path as the route table spells it ("/locations/[locationId]") to its pattern as
 * the OpenAPI document does ("/locations/{locationId}"). Only paths of the table reach the counts
 * (`declareHttpRoutes`); this is called once per route, never per request.
 */
export function routePattern(folderPath: string): string {
  return folderPath.replace(/\[(\w+)\]/g, "{$1}");
}

/**
 * SPEC.md's error codes (lib/api/http-error.ts's `errorStatus`; lib/metrics sits below lib/api, so
 * the list is written out here and a test keeps the two equal).
 */
export const ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_version",
  "invalid_token",
  "insufficient_scope",
  "forbidden",
  "not_found",
  "conflict",
  "rate_limited",
  "server_error",
  "temporarily_unavailable",
  OTHER,
] as const;

/** The grants that issue tokens: POST /oauth/token's three and POST /oauth/locationToken's exchange. */
export const GRANT_TYPES = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "location_token",
  OTHER,
] as const;
export type GrantTypeLabel = (typeof GRANT_TYPES)[number];

/** A token's level (the token response's `userType`). */
export const USER_TYPES = ["Company", "Location", OTHER] as const;

/** What lib/usage counts a request of a caller as. */
export const USAGE_OUTCOMES = ["ok", "refused", "limited"] as const;

/** lib/webhooks/deliver.ts's outcomes of an attempt, and `error` when it could not be recorded. */
export const DELIVERY_OUTCOMES = ["delivered", "retrying", "failed", "claim_lost", "error", OTHER] as const;

/** What `database_pool_connections` reports. */
export const POOL_STATES = ["total", "idle", "waiting"] as const;

/** The index of `value` in `list`, or of `other` (the last entry) when it is not there. */
export function indexIn(list: readonly string[], value: string | undefined): number {
  const index = value === undefined ? -1 : list.indexOf(value);
  return index === -1 ? list.length - 1 : index;
}
