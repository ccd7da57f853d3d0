import { Refusal, type RefusalKind } from "@/lib/refusal";
import { databaseUnavailableError } from "./database-unavailable";
import { type ErrorCode, HttpError } from "./http-error";

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
} as const satisfies Record<RefusalKind, ErrorCode>;

export function httpErrorOf(error: Refusal): HttpError {
  return new HttpError(codes[error.kind], error.message, { extra: { ...error.data } });
}

/** A Refusal as its HttpError; a database that cannot be used for a moment as 503 (./database-unavailable.ts); anything else as is. */
export function toHttpError(error: unknown): unknown {
  if (error instanceof Refusal) return httpErrorOf(error);
  return databaseUnavailableError(error) ?? error;
}
