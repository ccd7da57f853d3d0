import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorResponse } from "./handler";
import { MAX_FORM_BYTES } from "./parse";

/**
 * The token endpoints (POST /oauth/token, POST /oauth/locationToken) served straight from
 * node:http by scripts/serve.mjs, ahead of Next.js's router. The handler is the route module's own
 * exported POST (apiRoute and all); only the frame differs: a web Request is built from the
 * already-read body and the Response written back. Next.js's request pipeline (routing, web-stream
 * adapters, its AsyncLocalStorage contexts) cost about 0.8 ms of the event loop per request,
 * more than a grant's own work (bench CPU profile, README › Performance), and these two paths use
 * none of it: no cookies, sessions, rendering or middleware (proxy.ts only looks at screens and
 * at paths with a `%`, which these exact paths never have).
 *
 * Everything else (other methods, other paths) goes to Next.js as before, and so does every
 * request under `next dev`, which does not run serve.mjs.
 */
export type WebHandler = (request: Request) => Promise<Response>;

/** Answers `request` when it is one of the direct routes and returns true; false leaves it to Next.js. */
export type DirectRoutes = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Headers every response gets from next.config.mjs's `headers()`; a test keeps the two equal. */
export const FRAME_HEADERS = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
} as const;

/** Where serve.mjs finds the routes that instrumentation.ts registered in this process. */
const REGISTRY = "__tokenServiceDirectRoutes";

export function registerDirectRoutes(routes: Record<string, WebHandler>, origin: string): void {
  (globalThis as Record<string, unknown>)[REGISTRY] = directRoutes(routes, origin);
}

/** `routes` by exact path; each also answers with a trailing slash, as every path does (SPEC.md). */
export function directRoutes(routes: Record<string, WebHandler>, origin: string): DirectRoutes {
  const byPath = new Map<string, WebHandler>();
  for (const [path, handler] of Object.entries(routes)) {
    byPath.set(path, handler);
    byPath.set(`${path}/`, handler);
  }
  return (request, response) => {
    if (request.method !== "POST") return false;
    const url = request.url ?? "/";
    const query = url.indexOf("?");
    const handler = byPath.get(query === -1 ? url : url.slice(0, query));
    if (!handler) return false;
    void answer(handler, request, response, `${origin}${url}`);
    return true;
  };
}

async function answer(handler: WebHandler, incoming: IncomingMessage, outgoing: ServerResponse, url: string) {
  let body: Buffer;
  try {
    body = await readUpTo(incoming, MAX_FORM_BYTES + 1);
  } catch {
    outgoing.destroy(); // the client went away mid-body: nobody to answer
    return;
  }
  // One byte over the limit is enough for lib/api/parse.ts to refuse the body as too large.
  const overLimit = body.byteLength > MAX_FORM_BYTES;
  let result: Response;
  try {
    result = await handler(
      new Request(url, { method: "POST", headers: webHeaders(incoming), body: new Uint8Array(body) }),
    );
  } catch (error) {
    // The route's own apiRoute answers every refusal; this is only the frame failing.
    result = errorResponse(error, randomUUID());
  }
  try {
    const answerBody = Buffer.from(await result.arrayBuffer());
    outgoing.statusCode = result.status;
    for (const [name, value] of result.headers) outgoing.setHeader(name, value);
    for (const [name, value] of Object.entries(FRAME_HEADERS)) outgoing.setHeader(name, value);
    // The rest of a body past the limit is not read: end the connection instead of draining it.
    if (overLimit) outgoing.setHeader("connection", "close");
    outgoing.end(answerBody);
  } catch {
    outgoing.destroy();
  }
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
