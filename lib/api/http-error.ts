/**
 * The one error type of every HTTP surface. Codes and statuses are SPEC.md's; the description is
 * the sentence a person can act on and is sent as is, so it never holds a secret or internals.
 * `detail` is for the log only.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_version: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface HttpErrorOptions {
  /** Extra response headers (WWW-Authenticate, Retry-After, Allow, …). */
  headers?: Record<string, string>;
  /** Extra fields in the JSON body (e.g. the existing contact's id on a 409). */
  extra?: Record<string, unknown>;
  /** For the log, never for the response. */
  detail?: string;
  /** Overrides the status of the code (e.g. invalid_client with 400 when no auth was attempted). */
  status?: number;
}

export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  readonly detail?: string;

  constructor(
    readonly code: ErrorCode,
    readonly description: string,
    options: HttpErrorOptions = {},
  ) {
    super(`${code}: ${description}`);
    this.status = options.status ?? errorStatus[code];
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
    this.detail = options.detail;
  }
}

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
  statusCode: number;
  traceId: string;
  [extra: string]: unknown;
}

export function errorBody(error: HttpError, traceId: string): ErrorBody {
  return { ...error.extra, error: error.code, error_description: error.description, statusCode: error.status, traceId };
}
