import { randomInt } from "node:crypto";
import { expect } from "vitest";
import { type DirectRoute, type Method, routeFinder } from "@/lib/api/direct-router";
import { isInternal } from "@/lib/api/openapi/operation";
import { operatorKey } from "@/lib/cli/operator";
import { peerAddressHeader } from "@/lib/client-address";

/**
 * The one client the API tests call routes with: by method and path, as a client would
 * (`api.get("/contacts/abc")`), handled by the route module that the server's router
 * (lib/api/direct-router.ts) picks for that path, with the dynamic segments it would hand over.
 * No HTTP server in between: the tests of the router and of the server's edge use raw-http.ts.
 *
 * lib/ may not import app/, so a test names the route table once:
 * `const api = apiClient(apiRoutes)`, with app/route-table.ts's apiRoutes.
 */

/** The Version a request sends unless it says otherwise: the one the OpenAPI document's example names. */
export const testApiVersion = "2021-07-28";

export interface ApiRequest {
  /** The Version header: when left out, testApiVersion where the operation declares Version, else none; none when null. */
  version?: string | null;
  /** `Authorization: Bearer <token>`; null sends no Authorization. */
  token?: string | null;
  /** `Authorization: Basic` with the client's id and secret, each form-encoded (RFC 6749 §2.3.1). */
  basic?: { id: string; secret: string };
  /** The Authorization header as it stands, for malformed ones. */
  authorization?: string;
  /** A JSON body, sent as application/json. */
  json?: unknown;
  /** A form body (application/x-www-form-urlencoded); fields left undefined are not sent. */
  form?: Record<string, string | undefined>;
  /** A body sent as it is, with `contentType` (none unless given). */
  body?: BodyInit;
  contentType?: string;
  /** Added to the path's own query string. */
  query?: Record<string, string | number | undefined> | string;
  /** The client's address as the server records it from the connection (x-peer-address). */
  peer?: string;
  /** X-Forwarded-For, as proxies in front of the server write it. */
  forwardedFor?: string;
  /** Any other header; these win over the ones above. */
  headers?: Record<string, string>;
}

/** An answer, read: `body` is the parsed JSON (undefined when the body is not JSON, {} when empty). */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely in assertions
  body: any;
  text: string;
}

export interface ApiClient {
  get(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  post(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  put(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  patch(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  delete(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  options(path: string, request?: ApiRequest): Promise<ApiAnswer>;
  /** The raw Response, for a test that reads it as a stream or twice. */
  send(method: Method, path: string, request?: ApiRequest): Promise<Response>;
  /** The Request the client would send, for code under test that takes one. */
  request(method: Method, path: string, request?: ApiRequest): Request;
}

export function apiClient(routes: DirectRoute[], defaults: ApiRequest = {}): ApiClient {
  const find = routeFinder(routes);
  // The Version header by default only where the operation declares it, as a real client of each
  // endpoint sends it: OAuth clients (RFC 6749, 7009, 7662) never do.
  const versionOf = (method: Method, path: string): string | null => {
    const declaration = find(path.split("?")[0] as string)?.route.handlers[method]?.declaration;
    return declaration && !isInternal(declaration) && declaration.version ? testApiVersion : null;
  };
  const request = (method: Method, path: string, options: ApiRequest = {}) => {
    const sent = { ...defaults, ...options, headers: { ...defaults.headers, ...options.headers } };
    return buildRequest(method, path, {
      ...sent,
      version: sent.version === undefined ? versionOf(method, path) : sent.version,
    });
  };
  const send = async (method: Method, path: string, options?: ApiRequest): Promise<Response> => {
    const pathname = path.split("?")[0] as string;
    const found = find(pathname);
    const handler = found?.route.handlers[method];
    if (!found || !handler) throw new Error(`No route of the table serves ${method} ${pathname}.`);
    // Next.js hands the segments over decoded (the router leaves paths with a `%` to it).
    const params = Object.fromEntries(Object.entries(found.params).map(([k, v]) => [k, decodeURIComponent(v)]));
    return handler(request(method, path, options), { params: Promise.resolve(params) });
  };
  const call = (method: Method) => async (path: string, options?: ApiRequest) =>
    readAnswer(await send(method, path, options));
  return {
    get: call("GET"),
    post: call("POST"),
    put: call("PUT"),
    patch: call("PATCH"),
    delete: call("DELETE"),
    options: call("OPTIONS"),
    send,
    request,
  };
}

/**
 * A fetch that hands a client library's requests (openid-client, oauth4webapi) to the route
 * handlers in process, with the headers and body the library built: no server to start.
 */
export const inProcessFetch =
  (api: ApiClient) =>
  async (url: string, options: { method?: string; headers?: HeadersInit; body?: unknown }): Promise<Response> => {
    const { pathname, search } = new URL(url);
    // Libraries send a form as URLSearchParams (their types also allow a Uint8Array).
    const body = (options.body ?? undefined) as BodyInit | undefined;
    const headers = Object.fromEntries(new Headers(options.headers));
    return api.send(options.method as Method, `${pathname}${search}`, { headers, body });
  };

/** GET /locations/{id} with `token` (none when null): the call that shows whether a token works there. */
export const getLocation = (api: ApiClient, token: string | null, locationId: string, request: ApiRequest = {}) =>
  api.get(`/locations/${locationId}`, { token, ...request });

/** The operator's command at POST /api/operator, as the CLI sends it from this machine (loopback). */
export const operatorCommand = (api: ApiClient, command: string, flags: Record<string, unknown> = {}) =>
  api.post("/api/operator", { token: operatorKey(), json: { command, flags }, peer: "127.0.0.1" });

/**
 * An address of its own (IPv6 documentation range), for tests that must not share a per-address
 * limit: in a /64 of its own, since limits count an IPv6 address by its /64.
 */
export const freshAddress = () => `2001:db8:${addressGroup()}:${addressGroup()}::1`;
/** A group of an IPv6 address as its canonical text writes it (RFC 5952: no leading zero, never 0). */
const addressGroup = () => (1 + randomInt(0xffff)).toString(16);

function buildRequest(method: Method, path: string, options: ApiRequest): Request {
  const headers: Record<string, string> = {};
  if (options.version !== null) headers.version = options.version ?? testApiVersion;
  if (options.token != null) headers.authorization = `Bearer ${options.token}`;
  if (options.basic) headers.authorization = basicAuth(options.basic.id, options.basic.secret);
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.peer !== undefined) headers[peerAddressHeader] = options.peer;
  if (options.forwardedFor !== undefined) headers["x-forwarded-for"] = options.forwardedFor;
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = formBody(options.form);
  } else body = options.body;
  if (options.contentType !== undefined) headers["content-type"] = options.contentType;
  Object.assign(headers, options.headers);
  const init: RequestInit & { duplex?: "half" } = { method, headers, body };
  // A stream body needs `duplex`, which the DOM's RequestInit type lacks.
  if (body instanceof ReadableStream) init.duplex = "half";
  return new Request(`http://localhost${withQuery(path, options.query)}`, init);
}

function withQuery(path: string, query: ApiRequest["query"]): string {
  if (query === undefined) return path;
  const text =
    typeof query === "string"
      ? query.replace(/^\?/, "")
      : new URLSearchParams(
          Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
        ).toString();
  if (!text) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${text}`;
}

export function formBody(fields: Record<string, string | undefined>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.set(k, v);
  return form.toString();
}

export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`;
}

export async function readAnswer(response: Response): Promise<ApiAnswer> {
  const text = await response.text();
  let body: unknown = {};
  if (text) {
    try {
      body = JSON.parse(text);
    } catch (error) {
      // An answer that says it is JSON must be JSON; any other (an HTML page, a PEM key) has no body.
      if (response.headers.get("content-type")?.includes("json")) throw error;
      body = undefined;
    }
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * SPEC.md's error answer: `status`, the body `{ error, error_description, statusCode, traceId }`
 * with `code`, and the same trace id in `x-trace-id`; `description` matched when given.
 */
export function expectError(answer: ApiAnswer, status: number, code: string, description?: RegExp | string): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ error: code, statusCode: status, traceId: answer.headers.get("x-trace-id") });
  expect(typeof answer.body.traceId).toBe("string");
  expect(typeof answer.body.error_description).toBe("string");
  if (description !== undefined) expect(answer.body.error_description).toMatch(description);
}

/**
 * `expectError` from a Bearer-protected endpoint: a 401 or 403 also carries
 * `WWW-Authenticate: Bearer … error="<code>"` (RFC 6750 §3).
 */
export function expectBearerError(
  answer: ApiAnswer,
  status: number,
  code: string,
  description?: RegExp | string,
): void {
  expectError(answer, status, code, description);
  if (status === 401 || status === 403) {
    expect(answer.headers.get("www-authenticate")).toMatch(new RegExp(`^Bearer .*error="${code}"`));
  }
}
