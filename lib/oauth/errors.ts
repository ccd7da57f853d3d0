import { ApiError, type ErrorCode } from "@/lib/api/errors";
import { DomainError } from "@/lib/errors";

/**
 * OAuth errors are ApiErrors named after their RFC 6749 §5.2 code. The description is what the
 * caller reads and can act on; the detail (which check failed, ids) goes to the log only.
 */
const oauthError = (code: ErrorCode) => (description: string, detail?: string, headers?: Record<string, string>) =>
  new ApiError(code, description, { detail, headers });

export const invalidRequest = oauthError("invalid_request");
export const invalidClient = oauthError("invalid_client");
export const invalidGrant = oauthError("invalid_grant");
export const unauthorizedClient = oauthError("unauthorized_client");
export const unsupportedGrantType = oauthError("unsupported_grant_type");
export const invalidScope = oauthError("invalid_scope");
export const forbiddenError = oauthError("forbidden");

const domainCodes = {
  invalid: "invalid_request",
  not_found: "not_found",
  forbidden: "forbidden",
  conflict: "conflict",
} as const satisfies Record<DomainError["kind"], ErrorCode>;

/** A domain rule's refusal as the HTTP error of SPEC.md; anything else is rethrown as is. */
export function toApiError(error: unknown): unknown {
  if (error instanceof DomainError) return new ApiError(domainCodes[error.kind], error.message);
  return error;
}

/** Runs `fn`, turning DomainErrors into ApiErrors. */
export async function mapDomainErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toApiError(error);
  }
}
