import { type ErrorCode, HttpError } from "@/lib/api/http-error";

/**
 * OAuth errors are HttpErrors named after their RFC 6749 §5.2 code. The description is what the
 * caller reads and can act on; the detail (which check failed, ids) goes to the log only.
 */
const oauthError = (code: ErrorCode) => (description: string, detail?: string, headers?: Record<string, string>) =>
  new HttpError(code, description, { detail, headers });

export const invalidRequest = oauthError("invalid_request");
export const invalidClient = oauthError("invalid_client");
export const invalidGrant = oauthError("invalid_grant");
export const unauthorizedClient = oauthError("unauthorized_client");
export const unsupportedGrantType = oauthError("unsupported_grant_type");
