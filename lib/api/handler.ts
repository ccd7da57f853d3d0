import { describeError, log } from "@/lib/log";
import { countRefusal } from "@/lib/metrics/metrics";
import { newTraceId } from "@/lib/telemetry/tracing";
import { errorBody, HttpError } from "./http-error";
import { JsonResponse, json } from "./json-response";
import type { Declared, RouteDeclaration } from "./openapi/operation";
import { containsNul } from "./parse";
import { toHttpError } from "./refusal-to-http";
import { countUsage, noteRefusal } from "./usage";

export { JsonResponse, json };

/**
 * Every route handler of the HTTP API is wrapped by `apiRoute`: it gives the request a trace id (the
 * OpenTelemetry trace's when tracing is on), turns an HttpError or a domain refusal (Refusal, mapped
 * by lib/api/refusal-to-http.ts) into SPEC.md's error body, turns anything else into a logged
 * `server_error` that says nothing of the cause, and puts `x-trace-id` on every response, and
 * `Cache-Control: no-store` on every response that does not set its own (SPEC.md: API answers carry
 * account or token data; only the public documents, JWKS, metadata and openapi.json, set
 * `public, max-age=300`).
 */
export interface RequestContext {
  traceId: string;
}

/** An answer given at once (nothing to wait for) is returned as it is: no promise made to carry it. */
export type Handler<P> = (request: Request, context: RequestContext & { params: P }) => Response | Promise<Response>;

/**
 * A route module's export: Next.js's handler, carrying what it declared for /openapi.json. Next.js
 * takes a Response or a promise of one; so does the direct router.
 */
export type RouteHandler<P> = ((
  request: Request,
  routeContext?: { params?: Promise<P> },
) => Response | Promise<Response>) &
  Declared;

/**
 * `apiRoute(operation, handler)`: the handler and, beside it, its operation (lib/api/openapi/operation.ts)
 * or `{ internal: "why" }`; the route table carries both to /openapi.json. `apiRoute(handler)` is
 * for handlers that are not a route's method (routeMethods' answers, ./route-methods.ts).
 */
export function apiRoute<P = Record<string, never>>(
  declaration: RouteDeclaration,
  handler: Handler<P>,
): RouteHandler<P>;
export function apiRoute<P = Record<string, never>>(handler: Handler<P>): RouteHandler<P>;
export function apiRoute<P = Record<string, never>>(
  first: RouteDeclaration | Handler<P>,
  second?: Handler<P>,
): RouteHandler<P> {
  const handler = typeof first === "function" ? first : second!;
  const routeHandler: RouteHandler<P> = wrap(handler);
  if (typeof first !== "function") routeHandler.declaration = first;
  return routeHandler;
}

function wrap<P>(handler: Handler<P>) {
  return (request: Request, routeContext?: { params?: Promise<P> }): Response | Promise<Response> => {
    // The request's trace's id when tracing is on (lib/telemetry/), a random UUID otherwise.
    const traceId = newTraceId();
    let answer: Response | Promise<Response>;
    try {
      // The direct router hands over params it already holds: no promise to wait for.
      answer =
        routeContext instanceof KnownParams
          ? handle(handler, request, traceId, routeContext.known)
          : paramsThenHandle(handler, request, traceId, routeContext?.params);
    } catch (error) {
      return finished(errorResponse(error, traceId, request), request, traceId);
    }
    // Every promise costs the hot path Next.js's async-context hooks: an answer that waited for
    // nothing (a cached read) is finished without one.
    if (!(answer instanceof Promise)) return finished(answer, request, traceId);
    return answer.then(
      (response) => finished(response, request, traceId),
      (error: unknown) => finished(errorResponse(error, traceId, request), request, traceId),
    );
  };
}

async function paramsThenHandle<P>(
  handler: Handler<P>,
  request: Request,
  traceId: string,
  params: Promise<P> | undefined,
): Promise<Response> {
  return handle(handler, request, traceId, ((await params) ?? {}) as P);
}

/** What every answer gets: its trace id, its count in the usage, and no-store unless it chose otherwise. */
function finished(response: Response, request: Request, traceId: string): Response {
  setHeader(response, "x-trace-id", traceId);
  countUsage(request, response.status);
  return withNoStoreDefault(response);
}

/** The handler's answer to `request`, after the checks every route makes of its path. */
function handle<P>(handler: Handler<P>, request: Request, traceId: string, params: P): Response | Promise<Response> {
  if (containsNul(params)) {
    throw new HttpError("invalid_request", "The path contains a NUL character (%00), which nothing here accepts.");
  }
  return handler(request, { traceId, params });
}

/**
 * The route context the direct router (./direct-router.ts) hands a handler: `params` is the
 * promise Next.js gives, and `known` the value it resolves to, which apiRoute reads without
 * waiting for a promise.
 */
export class KnownParams<P> {
  constructor(readonly known: P) {}

  get params(): Promise<P> {
    return Promise.resolve(this.known);
  }
}

/** `response.headers.set(name, value)`; a JsonResponse keeps it without building its Headers. */
export function setHeader(response: Response, name: string, value: string): void {
  if (response instanceof JsonResponse) response.setHeader(name, value);
  else response.headers.set(name, value);
}

/** `Cache-Control: no-store` unless the answer chose its own (a public document). */
export function withNoStoreDefault(response: Response): Response {
  const has =
    response instanceof JsonResponse ? response.hasHeader("cache-control") : response.headers.has("cache-control");
  if (!has) setHeader(response, "cache-control", "no-store");
  return response;
}

export function errorResponse(thrown: unknown, traceId: string, request?: Request): Response {
  const error = toHttpError(thrown);
  const httpError =
    error instanceof HttpError
      ? error
      : new HttpError(
          "server_error",
          "Something went wrong on our side. Try again; if it keeps happening, contact support with the traceId.",
        );
  const fields = {
    traceId,
    method: request?.method,
    path: request ? new URL(request.url).pathname : undefined,
    errorCode: httpError.code,
  };
  if (request) noteRefusal(request, httpError);
  countRefusal(httpError.code);
  if (error instanceof HttpError) {
    if (httpError.detail) log.info("request refused", { ...fields, detail: httpError.detail });
  } else {
    log.error("unhandled error", { ...fields, cause: describeError(error) });
  }
  return json(errorBody(httpError, traceId), { status: httpError.status, headers: httpError.headers });
}

/** Token responses must not be cached (RFC 6749 §5.1). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" } as const;
