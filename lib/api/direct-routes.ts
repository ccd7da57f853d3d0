import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";
import { errorResponse } from "./handler";
import { MAX_FORM_BYTES, MAX_JSON_BYTES } from "./parse";

/**
 * The HTTP API served straight from node:http by scripts/serve.mjs, ahead of Next.js's router.
 * The handlers are the route modules' own exports (apiRoute and all, app/direct-routes.ts lists
 * them); only the frame differs: a web Request is built from the already-read body, the path's
 * dynamic segments are handed over as Next.js hands them, and the Response is written back.
 * Next.js's request pipeline (routing, web-stream adapters, its AsyncLocalStorage contexts) cost
 * about 0.8 ms of the event loop per request, more than a grant's own work and as much as a whole
 * `GET /locations/{id}` (bench CPU profiles, README › Performance), and the API uses none of it:
 * no cookies, sessions, rendering or middleware (proxy.ts only looks at screens and at paths with
 * a `%`, which are left to Next.js here).
 *
 * Everything else (screens, sign-in, HEAD, unknown paths, any path with a `%`) goes to Next.js as
 * before, and so does every request under `next dev`, which does not run serve.mjs.
 */

/** The methods a route module may export that are served here; HEAD is left to Next.js (it answers HEAD from GET). */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];

/** The dynamic segments of a route's path, by name: `{ locationId: string }` for "/locations/[locationId]". */
export type ParamsOf<Path extends string> = Path extends `${string}[${infer Name}]${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<Rest>
  : Record<never, never>;

/** A route handler as Next.js calls it: the request, and a promise of the path's dynamic segments. */
type Handler<Params> = (request: Request, context: { params: Promise<Params> }) => Promise<Response>;

/** What a route.ts exports, as far as it is served here. */
export type RouteModule<Params> = Partial<Record<Method, Handler<Params>>> & object;

type Segment = { literal: string } | { param: string };

export interface DirectRoute {
  /** The path as its folders under app/ spell it: "/locations/[locationId]". */
  path: string;
  segments: Segment[];
  handlers: Partial<Record<Method, Handler<Record<string, string>>>>;
}

/** One route of the table: the module's handlers, checked against the dynamic segments its path names. */
export function route<Path extends string>(path: Path, module: RouteModule<ParamsOf<Path>>): DirectRoute {
  const handlers: DirectRoute["handlers"] = {};
  for (const method of METHODS) {
    const handler = module[method];
    // The matcher fills exactly the segments the path names, so the params are ParamsOf<Path>.
    if (handler) handlers[method] = handler as Handler<Record<string, string>>;
  }
  const segments = path
    .split("/")
    .slice(1)
    .map((part): Segment => {
      const param = /^\[(\w+)\]$/.exec(part)?.[1];
      return param ? { param } : { literal: part };
    });
  return { path, segments, handlers };
}

/** Answers `request` when it is one of the direct routes and returns true; false leaves it to Next.js. */
export type DirectRoutes = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Headers every response gets from next.config.mjs's `headers()`; a test keeps the two equal. */
export const FRAME_HEADERS = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
} as const;

/** Where serve.mjs finds the routes that instrumentation.ts registered in this process. */
const REGISTRY = "__tokenServiceDirectRoutes";

export function registerDirectRoutes(routes: DirectRoute[], origin: string): void {
  (globalThis as Record<string, unknown>)[REGISTRY] = directRoutes(routes, origin);
}

/** A matched route: its handler for the method and the path's dynamic segments. */
interface Match {
  handler: Handler<Record<string, string>>;
  params: Record<string, string>;
}

/**
 * The router: `routes` by exact path, each also with a trailing slash, as every path answers
 * (SPEC.md); a fixed path wins over a dynamic one, as in Next.js.
 */
export function directRoutes(routes: DirectRoute[], origin: string): DirectRoutes {
  const fixed = new Map<string, DirectRoute>();
  const dynamic: DirectRoute[] = [];
  for (const one of routes) {
    if (one.segments.some((s) => "param" in s)) dynamic.push(one);
    else {
      fixed.set(one.path, one);
      fixed.set(`${one.path}/`, one);
    }
  }
  const find = (method: string, pathname: string): Match | undefined => {
    const known = fixed.get(pathname);
    if (known) {
      const handler = known.handlers[method as Method];
      return handler ? { handler, params: {} } : undefined;
    }
    const parts = (pathname.endsWith("/") ? pathname.slice(0, -1) : pathname).split("/").slice(1);
    for (const candidate of dynamic) {
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      const handler = candidate.handlers[method as Method];
      return handler ? { handler, params } : undefined;
    }
    return undefined;
  };
  return (request, response) => {
    const url = request.url ?? "/";
    // A `%` may hide a broken encoding or a NUL, which proxy.ts and Next.js's decoding answer.
    if (url.includes("%")) return false;
    const query = url.indexOf("?");
    const match = find(request.method ?? "", query === -1 ? url : url.slice(0, query));
    if (!match) return false;
    void answer(match, request, response, `${origin}${url}`);
    return true;
  };
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
const BODY_LIMIT = Math.max(MAX_FORM_BYTES, MAX_JSON_BYTES) + 1;

async function answer(match: Match, incoming: IncomingMessage, outgoing: ServerResponse, url: string) {
  const method = incoming.method as Method;
  let body: Buffer | undefined;
  if (method !== "GET") {
    try {
      body = await readUpTo(incoming, BODY_LIMIT);
    } catch {
      outgoing.destroy(); // the client went away mid-body: nobody to answer
      return;
    }
  }
  const overLimit = body !== undefined && body.byteLength >= BODY_LIMIT;
  let result: Response;
  try {
    const request = new Request(url, {
      method,
      headers: webHeaders(incoming),
      body: body?.byteLength ? new Uint8Array(body) : null,
    });
    result = await match.handler(request, { params: Promise.resolve(match.params) });
  } catch (error) {
    // The route's own apiRoute answers every refusal; this is only the frame failing.
    result = errorResponse(error, randomUUID());
  }
  try {
    let answerBody = Buffer.from(await result.arrayBuffer());
    outgoing.statusCode = result.status;
    for (const [name, value] of result.headers) outgoing.setHeader(name, value);
    for (const [name, value] of Object.entries(FRAME_HEADERS)) outgoing.setHeader(name, value);
    if (answerBody.byteLength > 0) {
      outgoing.setHeader("vary", "Accept-Encoding");
      if (answerBody.byteLength >= GZIP_FROM_BYTES && acceptsGzip(incoming)) {
        answerBody = await gzip(answerBody);
        outgoing.setHeader("content-encoding", "gzip");
      }
    }
    // The rest of a body past the limit is not read: end the connection instead of draining it.
    if (overLimit) outgoing.setHeader("connection", "close");
    outgoing.end(answerBody);
  } catch {
    outgoing.destroy();
  }
}

/**
 * Answers of at least 1 KiB (the OpenAPI document, the metadata) are gzipped for a client that
 * accepts it, as Next.js compresses; the usual answer of a few hundred bytes is not worth the CPU.
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
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size < limit) return;
      request.off("data", onData);
      request.off("end", onEnd);
      request.resume();
      resolve(Buffer.concat(chunks).subarray(0, limit));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", reject);
    // Closed before the end of the body (a settled promise ignores this).
    request.on("close", () => reject(new Error("the request closed before its body ended")));
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
