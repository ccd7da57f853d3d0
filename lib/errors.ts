/**
 * What a domain rule says when it refuses. Server actions show `message` (beside `field` when it
 * names one); route handlers map `kind` onto SPEC.md's error codes; the CLI prints `message`.
 */
export type DomainErrorKind = "invalid" | "not_found" | "forbidden" | "conflict";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string, field?: string) => new DomainError("invalid", message, field);
export const notFound = (message: string) => new DomainError("not_found", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const conflict = (message: string, field?: string) => new DomainError("conflict", message, field);
