import { DomainError, type DomainErrorKind } from "@/lib/errors";
import { ApiError, type ErrorCode } from "./errors";

/**
 * The one place a domain rule's refusal becomes SPEC.md's error: the kind picks the code (and so
 * the status), the message is the description, and the refusal's data joins the body (e.g. the
 * existing contact's id on a 409). `field` is for forms and stays out of the body.
 */
const codes = {
  invalid: "invalid_request",
  not_found: "not_found",
  forbidden: "forbidden",
  conflict: "conflict",
} as const satisfies Record<DomainErrorKind, ErrorCode>;

export function apiErrorOf(error: DomainError): ApiError {
  return new ApiError(codes[error.kind], error.message, { extra: { ...error.data } });
}

/** A DomainError as its ApiError; anything else as is. */
export function toApiError(error: unknown): unknown {
  return error instanceof DomainError ? apiErrorOf(error) : error;
}
