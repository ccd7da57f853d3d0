// Over 250 lines on purpose: the router and the server's edge are one frame around every request
// (matching, body limits, the edge rules, writing the answer); split, the order in which they run
// would be hidden.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";
import { routePattern } from "@/lib/metrics/labels";
import { countHttpRequest, countRefusal, declareHttpRoutes, OTHER_ROUTE, serviceMetrics } from "@/lib/metrics/metrics";
import { endStage, stageTimingOn } from "@/lib/stage-timing";
import { newTraceId, tracing } from "@/lib/telemetry/tracing";
import { DirectRequest } from "./direct-request";
import { errorResponse, JsonResponse, KnownParams, withNoStoreDefault } from "./handler";
import { errorBody, HttpError } from "./http-error";
import type { Declared } from "./openapi/operation";
import { MAX_FORM_BYTES, MAX_JSON_BYTES, MAX_SCREEN_BODY_BYTES } from "./parse";
import { isScreen } from "./screens";

/**
 * The HTTP API served straight from node:http by scripts/serve.mjs, ahead of Next.js's router.
 * The handlers are the route modules' own exports (apiRoute and all, app/route-table.ts lists
 * them); only the frame differs: a handler gets a DirectRequest (./direct-request.ts) over the
 * node:http request and its already-read body, the path's dynamic segments as Next.js hands them,
 * and a JsonResponse's text is written as is (any other Response is read from its body).
 * Next.js's request pipeline (routing, web-stream adapters, its AsyncLocalStorage contexts) cost
 * more of the event loop per request than a grant's own work (bench-results.md › Figures the code rests on),
 * and the API uses none of it:
 * no cookies, sessions, rendering or middleware (proxy.ts only looks at screens and at paths with
 * a `%`, which are left to Next.js here).
 *
 * Everything else (screens, sign-in, HEAD, unknown paths, any path with a `%`) goes to Next.js as
 * before, and so does every request under `next dev`, which does not run serve.mjs.
 *
 * It is also the server's edge (SPEC.md › The edges of the HTTP server), for every request, since
 * Next.js answers these with a 500, a redirect of a POST, or a redirect to a host the request named:
 * - a method nothing here serves (TRACE, PROPFIND, …): 400 invalid_request with `Allow`;
 * - an absolute-form request line (`GET http://evil.example/api/health`) is served as its path;
 * - a path with `//` or `\` is served as the path with single slashes (Next.js would 308 to it);
 * - a body declared larger than its route takes is refused before a byte of it is read (screens and
 *   their server actions: 1 MB; API routes: their own limit, from the declared length);
 * - without trusted proxies (TRUSTED_PROXY_HOPS=0) a client-sent X-Forwarded-Host is dropped, so
 *   Next.js's server-action origin check compares the Origin with the real Host;
 * - a server action posted from another origin, or any form posted to a screen from one (a page
 *   without JavaScript sends its action so): 403 forbidden (Next.js answers it with a 500).
 */

/** The methods a route module may export that are served here; HEAD is left to Next.js (it answers HEAD from GET). */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type Method = (typeof METHODS)[number];

/** Every method served somewhere (by a route here or by Next.js); any other is refused at the edge. */
const SERVED_METHODS = new Set<string>([...METHODS, "HEAD"]);
/** What the paths left to Next.js take: screens (GET, their server actions POST) and the JSON 404. */
const NEXT_ALLOW = "GET, HEAD, POST";

/** The dynamic segments of a route's path, by name: `{ locationId: string }` for "/locations/[locationId]". */
export type ParamsOf<Path extends string> = Path extends `${string}[${infer Name}]${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<Rest>
  : Record<never, never>;

/** A route handler as Next.js calls it: the request, and a promise of the path's dynamic segments. */
type Handler<Params> = (request: Request, context: { params: Promise<Params> }) => Response | Promise<Response>;

/** What a route.ts exports, as far as it is served here. */
export type RouteModule<Params> = Partial<Record<Method, Handler<Params>>> & object;

type Segment = { literal: string } | { param: string };

export interface DirectRoute {
  /** The path as its folders under app/ spell it: "/locations/[locationId]". */
  path: string;
  segments: Segment[];
  /** With what each declared for /openapi.json (lib/api/handler.ts's apiRoute). */
  handlers: Partial<Record<Method, Handler<Record<string, string>> & Declared>>;
  /** The `Allow` of an answer to a method the route does not serve: routeMethods' list. */
  allow: string;
  /** Its `route` label in the metrics: "/locations/{locationId}". */
  pattern: string;
}

/** One route of the table: the module's handlers, checked against the dynamic segments its path names. */
export function route<Path extends string>(path: Path, module: RouteModule<ParamsOf<Path>>): DirectRoute {
  const handlers: DirectRoute["handlers"] = {};
  for (const method of METHODS) {
    const handler = module[method];
    // The matcher fills exactly the segments the path names, so the params are ParamsOf<Path>.
    if (handler) handlers[method] = handler as Handler<Record<string, string>> & Declared;
  }
  const segments = path
    .split("/")
    .slice(1)
    .map((part): Segment => {
      const param = /^\[(\w+)\]$/.exec(part)?.[1];
      return param ? { param } : { literal: part };
    });
  // routeMethods (lib/api/route-methods.ts) hangs its Allow list on the OPTIONS handler.
  const allow = (module.OPTIONS as { allow?: unknown } | undefined)?.allow;
  return {
    path,
    segments,
    handlers,
    allow: typeof allow === "string" ? allow : Object.keys(handlers).join(", "),
    pattern: routePattern(path),
  };
}

/** Answers `request` when it is one of the direct routes and returns true; false leaves it to Next.js. */
export type DirectRouter = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Headers every response gets from next.config.mjs's `headers()`; a test keeps the two equal. */
export const FRAME_HEADERS = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
} as const;

const FRAME_ENTRIES = Object.entries(FRAME_HEADERS);
const FRAME_NAMES = new Set(Object.keys(FRAME_HEADERS));

/** Where serve.mjs finds the routes that instrumentation.ts registered in this process. */
const REGISTRY = "__tokenServiceDirectRouter";

export interface EdgeOptions {
  /** TRUSTED_PROXY_HOPS: with none, a client-sent X-Forwarded-Host is dropped. */
  trustedProxyHops: number;
}

export function registerDirectRouter(routes: DirectRoute[], origin: string, options: EdgeOptions): void {
  (globalThis as Record<string, unknown>)[REGISTRY] = directRouter(routes, origin, options);
}

/** A route found by path, whatever the method. */
export interface Found {
  route: DirectRoute;
  params: Record<string, string>;
}

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/** The largest body anything here takes: a JSON route's, a screen's server action's. */
const MAX_BODY_BYTES = Math.max(MAX_FORM_BYTES, MAX_JSON_BYTES, MAX_SCREEN_BODY_BYTES);

/**
 * The route of a path (no query): `routes` by exact path, each also with a trailing slash, as every
 * path answers (SPEC.md); a fixed path wins over a dynamic one, as in Next.js. The segments are
 * handed over undecoded: a path with a `%` is left to Next.js. Also the test client's
 * (lib/testing/api-client.ts), so tests address routes as the server does.
 */
export function routeFinder(routes: DirectRoute[]): (pathname: string) => Found | undefined {
  const fixed = new Map<string, DirectRoute>();
  const dynamic: DirectRoute[] = [];
  for (const one of routes) {
    if (one.segments.some((s) => "param" in s)) dynamic.push(one);
    else {
      fixed.set(one.path, one);
      fixed.set(`${one.path}/`, one);
    }
  }
  return (pathname) => {
    const known = fixed.get(pathname);
    if (known) return { route: known, params: {} };
    const parts = (pathname.endsWith("/") ? pathname.slice(0, -1) : pathname).split("/").slice(1);
    for (const candidate of dynamic) {
      const params = matchSegments(candidate.segments, parts);
      if (params) return { route: candidate, params };
    }
    return undefined;
  };
}

/** The router: routeFinder's route of the path, with the server's edge around it. */
export function directRouter(
  routes: DirectRoute[],
  origin: string,
  options: EdgeOptions = { trustedProxyHops: 0 },
): DirectRouter {
  const find = routeFinder(routes);
  const appHost = new URL(origin).host;
  declareHttpRoutes(routes.map((one) => one.path));
  return (request, response) => {
    // The clock is read for the metrics only when they are on (METRICS_PORT).
    const started = serviceMetrics() === undefined ? 0 : performance.now();
    if (stageTimingOn) arrivals.set(request, performance.now());
    if (options.trustedProxyHops === 0 && request.headers["x-forwarded-host"] !== undefined) {
      delete request.headers["x-forwarded-host"];
    }
    let url = request.url ?? "/";
    if (url.charCodeAt(0) !== 0x2f /* "/" */) {
      // Absolute form (RFC 9112 §3.2.2): served as its path here, never redirected to its host.
      const absolute = ABSOLUTE_FORM.exec(url);
      if (!absolute) {
        refuse(
          response,
          started,
          OTHER_ROUTE,
          "The request target must be a path (/…) or an absolute http(s) URL.",
          NEXT_ALLOW,
        );
        return true;
      }
      url = url.slice(absolute[0].length);
      if (url.charCodeAt(0) !== 0x2f) url = `/${url}`;
      request.url = url;
    }
    const query = url.indexOf("?");
    let pathname = query === -1 ? url : url.slice(0, query);
    if (pathname.includes("//") || pathname.includes("\\")) {
      // Next.js answers these with a 308 to the path with single slashes; answer that path instead.
      pathname = pathname.replace(/\\/g, "/").replace(/\/\/+/g, "/");
      url = query === -1 ? pathname : `${pathname}${url.slice(query)}`;
      request.url = url;
    }
    // A `%` may hide a broken encoding or a NUL, which proxy.ts and Next.js's decoding answer.
    const found = url.includes("%") ? undefined : find(pathname);
    const method = request.method ?? "";
    const pattern = found?.route.pattern ?? OTHER_ROUTE;
    // With tracing on, scripts/serve.mjs made the request's server span current: name it by the route.
    const traced = tracing();
    if (traced !== undefined && found !== undefined) traced.route(method, pattern);
    if (!SERVED_METHODS.has(method)) {
      const allow = found?.route.allow ?? NEXT_ALLOW;
      refuse(response, started, pattern, `${method} is not served here. Use ${allow.replaceAll(", ", " or ")}.`, allow);
      return true;
    }
    // More than any route or screen takes (screens' server actions: proxy.ts and Next.js would
    // read it all first); a route's own smaller limit is checked by the route, also before reading.
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
      refuse(response, started, pattern, "The request body is larger than 1 MB.", undefined, true);
      return true;
    }
    if (method === "POST" && !sameOriginAction(request, appHost)) {
      // Next.js throws on a server action from another origin, which it answers with a 500; a page
      // without JavaScript posts its action as a plain form, without Next-Action.
      if (request.headers["next-action"] !== undefined) {
        const description = "A server action is accepted only from this app's own pages.";
        refuse(response, started, pattern, description, undefined, true, "forbidden");
        return true;
      }
      if (isScreen(pathname)) {
        const description = "A form is accepted only from this site's own pages: send it from the page itself.";
        refuse(response, started, pattern, description, undefined, true, "forbidden");
        return true;
      }
    }
    const handler = found?.route.handlers[method as Method];
    if (!found || !handler) {
      // A screen's POST (a server action, or a form without JavaScript) may show a secret once beside
      // text the person typed: Next.js must not compress its answer (BREACH), as the API never
      // compresses a private one. Its pages (GET) keep their compression: none shows a secret.
      if (method === "POST") delete request.headers["accept-encoding"];
      if (started !== 0) countWhenFinished(response, pattern, method, started);
      return false;
    }
    void answer(handler, found.params, request, response, `${origin}${url}`, pattern, started);
    return true;
  };
}

/** A request left to Next.js (screens, HEAD, the JSON 404), counted once its answer is written. */
function countWhenFinished(response: ServerResponse, pattern: string, method: string, started: number): void {
  response.once("finish", () =>
    countHttpRequest(pattern, method, response.statusCode, (performance.now() - started) / 1000),
  );
}

/**
 * SPEC.md's 400 invalid_request, written at the edge. `close`: the body is not read, so the
 * connection ends with the answer instead of reading the rest of it.
 */
function refuse(
  response: ServerResponse,
  started: number,
  pattern: string,
  description: string,
  allow?: string,
  close = false,
  code: "invalid_request" | "forbidden" = "invalid_request",
): void {
  const traceId = newTraceId();
  const error = new HttpError(code, description);
  const body = JSON.stringify(errorBody(error, traceId));
  response.statusCode = error.status;
  response.setHeader("content-type", "application/json; charset=utf-8");
  response.setHeader("cache-control", "no-store");
  response.setHeader("x-trace-id", traceId);
  for (const [name, value] of FRAME_ENTRIES) response.setHeader(name, value);
  if (allow) response.setHeader("allow", allow);
  if (close) response.setHeader("connection", "close");
  response.end(body);
  countRefusal(code);
  if (started !== 0) countHttpRequest(pattern, response.req.method, error.status, (performance.now() - started) / 1000);
}

/**
 * Next.js's own server-action check, made before it can fail with a 500: an action (or a screen's
 * form) posted with an `Origin` must come from the host it was sent to, or from APP_URL's
 * (`serverActions.allowedOrigins`). Without an `Origin` (old browsers, non-browser clients) Next.js
 * decides, as before.
 */
function sameOriginAction(request: IncomingMessage, appHost: string): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const forwarded = request.headers["x-forwarded-host"];
  const requested =
    (typeof forwarded === "string" ? forwarded.split(",")[0]?.trim() : undefined) || request.headers.host;
  return host === requested || host === appHost;
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    const part = parts[i] as string;
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === "") return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}

/** One byte over the larger body limit is enough for lib/api/parse.ts to refuse a body as too large. */
const BODY_LIMIT = MAX_BODY_BYTES + 1;

/** When each request reached the router, kept only with BENCH_STAGE_TIMING=1 (lib/stage-timing.ts). */
const arrivals = new WeakMap<IncomingMessage, number>();

/** `handler`'s answer, with its time counted (stage timing on). */
function timedHandler(
  handler: Handler<Record<string, string>>,
  request: Request,
  params: Record<string, string>,
): Response | Promise<Response> {
  const since = performance.now();
  const answer = handler(request, new KnownParams(params));
  if (!(answer instanceof Promise)) {
    endStage("handler", since);
    return answer;
  }
  return answer.finally(() => endStage("handler", since));
}

function answer(
  handler: Handler<Record<string, string>>,
  params: Record<string, string>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  url: string,
  pattern: string,
  started: number,
): void {
  const method = incoming.method as Method;
  if (method === "GET") {
    // No body to read: the handler runs at once, and its answer is written at once when it gave
    // one, else when its promise settles.
    const request = new DirectRequest(method, url, incoming.headers, undefined).asRequest();
    let result: Response | Promise<Response>;
    try {
      result = stageTimingOn ? timedHandler(handler, request, params) : handler(request, new KnownParams(params));
    } catch (error) {
      result = frameFailure(error);
    }
    if (result instanceof Promise) {
      result.then(
        (response) => write(response, incoming, outgoing, false, pattern, started),
        (error: unknown) => write(frameFailure(error), incoming, outgoing, false, pattern, started),
      );
    } else write(result, incoming, outgoing, false, pattern, started);
    return;
  }
  void answerWithBody(handler, params, incoming, outgoing, url, method, pattern, started);
}

/** The route's own apiRoute answers every refusal; this is only the frame failing. */
function frameFailure(error: unknown): Response {
  return withNoStoreDefault(errorResponse(error, newTraceId()));
}

async function answerWithBody(
  handler: Handler<Record<string, string>>,
  params: Record<string, string>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  url: string,
  method: Method,
  pattern: string,
  started: number,
) {
  let body: Buffer | undefined;
  let stream: ReadableStream<Uint8Array> | undefined;
  if (Number(incoming.headers["content-length"]) > MAX_FORM_BYTES) {
    // Declared over the smaller limit: the route reads it itself, so a form route refuses it from
    // its declared length (lib/api/parse.ts) before a byte is read; a JSON route reads up to 1 MB.
    stream = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
  } else {
    try {
      const since = stageTimingOn ? performance.now() : 0;
      body = await readUpTo(incoming, BODY_LIMIT);
      if (stageTimingOn) endStage("body", since);
    } catch {
      outgoing.destroy(); // the client went away mid-body: nobody to answer
      return;
    }
  }
  const overLimit = body !== undefined && body.byteLength >= BODY_LIMIT;
  let result: Response;
  try {
    let request: Request;
    if (stream) {
      // `duplex`, which a stream body needs, is missing from the DOM's RequestInit type.
      const init: RequestInit & { duplex: "half" } = {
        method,
        headers: webHeaders(incoming),
        body: stream,
        duplex: "half",
      };
      request = new Request(url, init);
    } else {
      request = new DirectRequest(method, url, incoming.headers, body).asRequest();
    }
    result = await (stageTimingOn ? timedHandler(handler, request, params) : handler(request, new KnownParams(params)));
  } catch (error) {
    result = frameFailure(error);
  }
  write(result, incoming, outgoing, overLimit, pattern, started);
}

/**
 * Writes the handler's answer, with the frame headers; `overLimit`: the body was not read to its end.
 * `pattern` and `started` (0 with the metrics off) are what the metrics count it under.
 */
function write(
  result: Response,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  overLimit: boolean,
  pattern: string,
  started: number,
): void {
  // It runs in a promise's callback: whatever it throws (a handler that resolved to something not a
  // Response) ends this connection, never the process as an unhandled rejection.
  try {
    if (!(result instanceof JsonResponse)) {
      // Anything but our JSON answers is read back from its stream.
      result.arrayBuffer().then(
        (bytes) => send(result, Buffer.from(bytes), incoming, outgoing, overLimit, pattern, started),
        () => outgoing.destroy(),
      );
      return;
    }
    send(result, result.bodyText, incoming, outgoing, overLimit, pattern, started);
  } catch {
    outgoing.destroy();
  }
}

/** Headers the frame writes itself, which have the last word on them: a handler's own are left out. */
const writtenByFrame = (name: string) => FRAME_NAMES.has(name) || name === "content-length";
/** The same, and `vary`, for an answer with a body (the frame's own Vary: Accept-Encoding). */
const writtenByFrameWithBody = (name: string) => writtenByFrame(name) || name === "vary";

function send(
  result: Response,
  body: Buffer | string,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  overLimit: boolean,
  pattern: string,
  started: number,
): void {
  try {
    // The header block as one list for writeHead: node:http validates each field there as
    // setHeader would, without keeping a header object to build the block from afterwards.
    const fields: string[] = [];
    const hasBody = body.length > 0;
    const skip = hasBody ? writtenByFrameWithBody : writtenByFrame;
    if (result instanceof JsonResponse) result.writeHeaders(fields, skip);
    else for (const [name, value] of result.headers) if (!skip(name)) fields.push(name, value);
    for (const [name, value] of FRAME_ENTRIES) fields.push(name, value);
    // A string is written as its UTF-8 bytes, as Buffer.from gives them.
    if (hasBody) {
      fields.push("vary", "Accept-Encoding");
      // The header scan last: the usual answer is under the size and stops at the first test.
      if (reachesGzipSize(body) && acceptsGzip(incoming) && !isPrivate(fields)) {
        gzip(body).then(
          (zipped) => {
            try {
              fields.push("content-encoding", "gzip");
              end(result.status, fields, zipped, incoming, outgoing, overLimit, pattern, started);
            } catch {
              outgoing.destroy();
            }
          },
          () => outgoing.destroy(),
        );
        return;
      }
    }
    end(result.status, fields, body, incoming, outgoing, overLimit, pattern, started);
  } catch {
    outgoing.destroy();
  }
}

function end(
  status: number,
  fields: string[],
  body: Buffer | string,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  overLimit: boolean,
  pattern: string,
  started: number,
): void {
  // The rest of a body past the limit (or refused from its declared length) is not read: end
  // the connection instead of draining it. A request that declares no body is whole once its
  // headers are in, though node:http marks it complete only after an answer given at once.
  if (overLimit || !(incoming.complete || declaresNoBody(incoming))) fields.push("connection", "close");
  // As node:http would set it from `end(body)`, which it cannot once writeHead has made the block.
  if (status !== 204 && status !== 304) fields.push("content-length", String(Buffer.byteLength(body)));
  unwritten.push({ outgoing, status, fields, body, pattern, method: incoming.method, started });
  if (unwritten.length === 1) setImmediate(writeAnswers);
  if (stageTimingOn) endStage("request", arrivals.get(incoming) ?? performance.now());
}

/**
 * Answers ready in this turn of the event loop, written together at its end (setImmediate, after
 * the turn's sockets were read). Under load a turn answers many connections: written back to
 * back, the clients' next requests arrive together too, and each side takes a batch of them per
 * wake-up instead of one, which costs both less CPU per request than writing each answer the
 * moment it is ready (bench-results.md › Figures the code rests on). Idle, the turn ends at once.
 */
const unwritten: UnwrittenAnswer[] = [];

/** An answer made in this turn, waiting for `writeAnswers`. */
interface UnwrittenAnswer {
  outgoing: ServerResponse;
  status: number;
  fields: string[];
  body: Buffer | string;
  /** For the metrics: the route's pattern, the method, and when the request arrived (0: metrics off). */
  pattern: string;
  method: string | undefined;
  started: number;
}

function writeAnswers(): void {
  const answers = unwritten.splice(0);
  for (const { outgoing, status, fields, body, pattern, method, started } of answers) {
    try {
      outgoing.writeHead(status, fields);
      outgoing.end(body);
    } catch {
      // Only its own connection ends, and a request that got no answer is not counted as answered.
      outgoing.destroy();
      continue;
    }
    if (started !== 0) countHttpRequest(pattern, method, status, (performance.now() - started) / 1000);
  }
}

/** No Content-Length (or 0) and no Transfer-Encoding: an HTTP/1.1 request without a body (RFC 9112 §6.3). */
function declaresNoBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return (length === undefined || length === "0") && incoming.headers["transfer-encoding"] === undefined;
}

/** The header block (name, value, …) says `Cache-Control: no-store`. */
function isPrivate(fields: readonly string[]): boolean {
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i]?.toLowerCase() === "cache-control" && /(?:^|,)\s*no-store\s*(?:$|,)/i.test(fields[i + 1] ?? ""))
      return true;
  }
  return false;
}

/** At least GZIP_FROM_BYTES bytes; a string's UTF-8 length is counted only when it may be (at most 3 bytes a unit). */
function reachesGzipSize(body: Buffer | string): boolean {
  if (typeof body !== "string") return body.byteLength >= GZIP_FROM_BYTES;
  return body.length * 3 >= GZIP_FROM_BYTES && Buffer.byteLength(body) >= GZIP_FROM_BYTES;
}

/**
 * Public answers of at least 1 KiB (the OpenAPI document, the metadata, the JWKS) are gzipped for a
 * client that accepts it, as Next.js compresses; the usual answer of a few hundred bytes is not
 * worth the CPU. A private answer (`Cache-Control: no-store`, every API answer that does not choose
 * otherwise) never is: it may carry a credential (a token answer, a private integration's new
 * token) beside text the requester chose, and then the compressed sizes give the secret away
 * (BREACH). Deciding by the answer, not by the route family, covers every answer that carries one.
 */
const GZIP_FROM_BYTES = 1024;
const gzip = promisify(gzipCallback);

function acceptsGzip(request: IncomingMessage): boolean {
  const accepted = request.headers["accept-encoding"];
  return typeof accepted === "string" && /(?:^|,)\s*gzip\s*(?:$|,|;(?!\s*q=0(?:\.0*)?\s*(?:$|,)))/i.test(accepted);
}

/** The request body, stopping after `limit` bytes (the rest is discarded as it arrives). */
function readUpTo(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: Buffer) => {
      settled = true;
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size < limit) return;
      request.off("data", onData);
      request.off("end", onEnd);
      request.resume();
      settle(Buffer.concat(chunks).subarray(0, limit));
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", reject);
    // Closed before the end of the body. Every request closes once answered: the Error (and its
    // stack trace, a few per cent of a refresh's CPU) is made only when the body was cut short.
    request.on("close", () => {
      if (!settled) reject(new Error("the request closed before its body ended"));
    });
  });
}

function webHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
