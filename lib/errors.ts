/**
 * What a domain rule says when it refuses, in the domain's words and no HTTP ones. Server actions
 * show `message` (beside `field` when it names one); the HTTP API maps `kind` onto SPEC.md's error
 * codes in one place (lib/api/domain-errors.ts) and adds `data` to the body; the CLI prints `message`.
 */
export type DomainErrorKind = "invalid" | "not_found" | "forbidden" | "conflict";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly field?: string,
    /** What the caller needs to act on the refusal, e.g. the id of the record a conflict is with. */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export const invalid = (message: string, field?: string) => new DomainError("invalid", message, field);
export const notFound = (message: string) => new DomainError("not_found", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const conflict = (message: string, field?: string, data?: Record<string, unknown>) =>
  new DomainError("conflict", message, field, data);
