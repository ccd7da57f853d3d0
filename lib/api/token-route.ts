import { currentTime } from "@/lib/clock";
import type { Scope } from "@/lib/scopes";
import { type Principal, rateLimitSubject } from "@/lib/tokens/principal";
import {
  authenticateBearerNow,
  bearerError,
  requireAgencyPrivateIntegration,
  requireLocationToken,
  requireScope,
} from "./bearer";
import { apiRoute, errorResponse, type RequestContext, setHeader } from "./handler";
import { HttpError } from "./http-error";
import type { Operation } from "./openapi/operation";
import { currentLimits, hitRateLimit, limitHeaders, type RateLimitDecision, rateLimitedError } from "./rate-limit";
import { toHttpError } from "./refusal-to-http";
import { type ApiVersion, requireVersion } from "./version";

/**
 * The endpoints that tokens unlock. Every request goes through the same ordered checks, in the
 * order `checkSteps` gives (./check-order.ts, each with why it comes where it does); the first that
 * fails answers. Every answer carries the X-RateLimit-* headers: the limits always, the remaining
 * counts from the rate limit's step on.
 */
export interface TokenRouteContext<P> extends RequestContext {
  params: P;
  principal: Principal;
  version: ApiVersion;
}

/**
 * The operation of an endpoint that tokens unlock, declared beside its handler: Bearer, Version and
 * rate limits are implied (they are the checks above); `scope` and `level` are enforced here.
 */
export interface TokenOperation extends Omit<Operation, "auth" | "version" | "rateLimited" | "scope"> {
  scope: Scope;
  /** `Location`: a sub-account endpoint; agency-level tokens get 403 forbidden before the scope check. */
  level?: "Location";
  /** Who alone may call it: `agency_private_integration` (the management API); others get 403 forbidden before the scope check. */
  only?: "agency_private_integration";
}

export function tokenRoute<P = Record<string, never>>(
  options: TokenOperation,
  // An answer given at once (a cached read) is taken as it is: no promise made to carry it.
  handler: (request: Request, context: TokenRouteContext<P>) => Response | Promise<Response>,
) {
  const { level: _level, only: _only, ...documented } = options;
  const declaration: Operation = { ...documented, auth: "bearer", version: true, rateLimited: true };
  // The checks above, waiting only where a step gives a promise: a request whose token, count and
  // answer are all at hand (cached) is answered without one, and every promise costs the hot path
  // Next.js's async-context hooks.
  return apiRoute<P>(declaration, (request, context) => {
    const limits = new LimitsOfAnswer();
    const refuse = (error: unknown) => limits.on(errorResponse(withChallenge(error), context.traceId, request));
    let answer: Response | Promise<Response>;
    try {
      const version = requireVersion(request);
      // One clock reading for the token's checks and the rate-limit windows of this request.
      const now = currentTime();
      answer = then(authenticateBearerNow(request, now), (principal) =>
        then(hitRateLimit(rateLimitSubject(principal), { now }), (decision) => {
          limits.counted(decision);
          if (options.level === "Location") requireLocationToken(principal);
          if (options.only === "agency_private_integration") requireAgencyPrivateIntegration(principal);
          requireScope(principal, options.scope);
          const params = context.params;
          return then(handler(request, { traceId: context.traceId, params, principal, version }), limits.on);
        }),
      );
    } catch (error) {
      return refuse(error);
    }
    return answer instanceof Promise ? answer.then(undefined, refuse) : answer;
  });
}

/** `next(value)`: at once when `value` is at hand, else once its promise resolves. */
function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Counts the authenticated caller (step 3) at `now` (default: the clock); throws 429 rate_limited past a limit. */
export type CountRequest = (principal: Principal, now?: Date) => Promise<void>;

/**
 * Runs `handler` under the API's rate limits, for the routes above and for the OAuth endpoints
 * that take a Bearer token (/oauth/locationToken): `count` is called once the caller is known,
 * and every answer, error or not, carries the X-RateLimit-* headers (the limits always, the
 * remaining counts once counted). The bucket is `rateLimitSubject`: the app or integration per
 * sub-account or agency of the token.
 */
export async function withRateLimit(
  request: Request,
  context: RequestContext,
  handler: (count: CountRequest) => Promise<Response>,
): Promise<Response> {
  const limits = new LimitsOfAnswer();
  try {
    return limits.on(
      await handler((principal, now) =>
        Promise.resolve(hitRateLimit(rateLimitSubject(principal), { now })).then((decision) =>
          limits.counted(decision),
        ),
      ),
    );
  } catch (error) {
    return limits.on(errorResponse(withChallenge(error), context.traceId, request));
  }
}

/** The X-RateLimit-* headers of one answer: the limits alone until the caller is counted. */
class LimitsOfAnswer {
  #headers: Record<string, string> | undefined;

  /** The caller's counts: their headers go on the answer; past a limit, 429 rate_limited. */
  counted(decision: RateLimitDecision): void {
    this.#headers = decision.headers;
    if (!decision.allowed) throw rateLimitedError(decision);
  }

  /** `response`, with the headers (bound: it is handed on as a callback). */
  on = (response: Response): Response => {
    const written = this.#headers ?? limitHeaders(currentLimits());
    for (const name in written) setHeader(response, name, written[name] as string);
    return response;
  };
}

/** SPEC.md: every 401 and 403 of a Bearer-protected endpoint carries the RFC 6750 §3 challenge. */
function withChallenge(thrown: unknown): unknown {
  const error = toHttpError(thrown);
  if (!(error instanceof HttpError) || (error.status !== 401 && error.status !== 403)) return error;
  if (Object.keys(error.headers).some((name) => name.toLowerCase() === "www-authenticate")) return error;
  return bearerError(error.code as "forbidden", error.description);
}
