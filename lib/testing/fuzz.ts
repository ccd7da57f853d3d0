import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import fc from "fast-check";
import { bodyArbitrary } from "./fuzz-bodies";
import { enc, type FuzzSecrets, headerValue, nastyString } from "./fuzz-values";

/**
 * Request fuzzing (fast-check) shared by the in-process fuzz test (lib/api/fuzz.test.ts) and the
 * live one against a production server (scripts/stress.ts): every route handler under app/, random
 * methods, headers, content types, encodings, sizes, field types and values. The property is
 * SPEC.md's: never a 5xx, and every error is the JSON error body (./fuzz-answer.ts). The values are
 * ./fuzz-values.ts's, the bodies ./fuzz-bodies.ts's.
 */

export interface RouteFile {
  /** e.g. "app/locations/[locationId]/route.ts" */
  file: string;
  /** Path segments; "[x]" a parameter, "[...x]" a catch-all. Route groups "(x)" dropped. */
  segments: string[];
}

/** Every app/**\/route.ts, so a new route is fuzzed without anyone remembering to add it. */
export function discoverRoutes(root = "app"): RouteFile[] {
  const out: RouteFile[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name === "route.ts") {
        const segments = relative(root, dir)
          .split(sep)
          .filter((s) => s && !/^\(.*\)$/.test(s));
        out.push({ file: path, segments });
      }
    }
  };
  visit(root);
  return out;
}

export const paramName = (segment: string) => /^\[(?:\.\.\.)?(.+)\]$/.exec(segment)?.[1];

export interface FuzzRequest {
  method: string;
  /** Values for the route's [param] segments, catch-alls as arrays. */
  params: Record<string, string | string[]>;
  trailingSlash: boolean;
  query: string;
  headers: [string, string][];
  body?: Uint8Array;
  /** Describes the body for a failure report without printing megabytes. */
  bodyKind: string;
}

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=UTF-8",
  "application/x-www-form-urlencoded;charset=ISO-8859-1",
  "multipart/form-data; boundary=fuzzboundary",
  "multipart/form-data",
  "text/plain",
  "application/xml",
  "application/octet-stream",
  ";",
  "application/json; charset=",
  "*/*",
);

/**
 * `methods`: the methods the route exports; `served` those it really serves (the rest are refused),
 * which get most of the runs.
 */
export function requestArbitrary(
  route: RouteFile,
  methods: string[],
  secrets: FuzzSecrets,
  options: { served?: string[]; maxHuge?: number } = {},
) {
  const served = options.served?.length ? options.served : methods;
  const method = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...served) },
    { weight: 1, arbitrary: fc.constantFrom(...methods) },
  );
  const real = (xs: string[]) => (xs.length ? fc.constantFrom(...xs) : nastyString);
  const paramValue = fc.oneof({ weight: 2, arbitrary: real(secrets.ids) }, { weight: 3, arbitrary: nastyString });
  const params: Record<string, fc.Arbitrary<string | string[]>> = {};
  for (const segment of route.segments) {
    const name = paramName(segment);
    if (!name) continue;
    params[name] = segment.startsWith("[...")
      ? fc.array(
          nastyString.filter((s) => s.length > 0),
          { minLength: 1, maxLength: 5 },
        )
      : paramValue;
  }
  const authorization = fc.oneof(
    fc.constant(undefined),
    { weight: 6, arbitrary: real(secrets.bearer).map((t) => `Bearer ${t}`) },
    real(secrets.bearer).map((t) => `bearer  ${t}`),
    real(secrets.bearer).map((t) => `Bearer ${t.slice(0, -2)}xx`),
    headerValue().map((v) => `Bearer ${v}`),
    fc.uuid().map((u) => `Bearer pit-${u}`),
    headerValue(),
    fc
      .tuple(real(secrets.clientIds), real(secrets.clientSecrets))
      .map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`),
    headerValue(60).map((v) => `Basic ${v}`),
    fc.uint8Array({ maxLength: 48 }).map((b) => `Basic ${Buffer.from(b).toString("base64")}`),
    fc.constantFrom(
      "Bearer",
      "Basic",
      "Bearer ",
      "Basic =",
      "Basic %%%",
      "Bearer a.b.c",
      "Bearer eyJhbGciOiJub25lIn0.e30.",
      `Basic ${Buffer.from("\u0000:\u0000").toString("base64")}`,
      `Basic ${Buffer.from("%00:%00").toString("base64")}`,
    ),
  );
  const version = fc.oneof(
    fc.constant(undefined),
    { weight: 6, arbitrary: fc.constantFrom("2021-04-15", "2021-07-28", "2023-02-21") },
    headerValue(40),
  );
  const query = fc.oneof(
    fc.constant(""),
    fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom("companyId", "appId", "locationId", "scope"), nastyString),
          fc.oneof(real(secrets.ids), nastyString),
        ),
        { maxLength: 5 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")),
    fc.constantFrom("companyId=%zz", "companyId=a&companyId=b", "%", "&&&=", "a=%E0%A4%A", "companyId=%00"),
  );
  const extraHeaders = fc.array(
    fc.tuple(
      fc.constantFrom(
        "content-encoding",
        "transfer-encoding",
        "accept",
        "accept-encoding",
        "x-forwarded-for",
        "cookie",
        "origin",
        "content-length",
        "x-trace-id",
      ),
      headerValue(80),
    ),
    { maxLength: 2 },
  );
  return fc
    .record({
      method,
      params: fc.record(params),
      trailingSlash: fc.boolean(),
      query,
      authorization,
      version,
      body: bodyArbitrary(secrets, options.maxHuge),
      contentType: fc.oneof({ weight: 6, arbitrary: fc.constant("from body") }, fc.constant(undefined), contentTypes),
      extraHeaders,
    })
    .map((r): FuzzRequest => {
      const headers: [string, string][] = [];
      if (r.authorization !== undefined) headers.push(["authorization", r.authorization]);
      if (r.version !== undefined) headers.push(["version", r.version]);
      const contentType = r.contentType === "from body" ? r.body.contentType : r.contentType;
      if (contentType !== undefined) headers.push(["content-type", contentType]);
      for (const [name, value] of r.extraHeaders) headers.push([name, value]);
      const hasBody = r.method !== "GET" && r.method !== "HEAD" && r.body.bytes !== undefined;
      return {
        method: r.method,
        params: r.params,
        trailingSlash: r.trailingSlash,
        query: r.query,
        headers,
        body: hasBody ? r.body.bytes : undefined,
        bodyKind: hasBody ? r.body.kind : "none",
      };
    });
}

/** The URL path of a fuzzed request (parameters percent-encoded the way a client would). */
export function requestPath(route: RouteFile, request: FuzzRequest): string {
  const parts = route.segments.map((segment) => {
    const name = paramName(segment);
    if (!name) return segment;
    const value = request.params[name] ?? "x";
    return (Array.isArray(value) ? value : [value]).map((v) => enc(v)).join("/");
  });
  const path = `/${parts.join("/")}${request.trailingSlash ? "/" : ""}`;
  return request.query ? `${path}?${request.query}` : path;
}

/** A readable one-line account of a fuzzed request for failure messages. */
export function describeRequest(route: RouteFile, request: FuzzRequest): string {
  const headers = request.headers.map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 80)}…` : v}`).join(" | ");
  return `${request.method} ${requestPath(route, request).slice(0, 300)} [${headers}] body=${request.bodyKind}${
    request.body ? ` (${request.body.byteLength} bytes)` : ""
  }`;
}

// The fuzz tests import everything from here.
export { checkAnswer } from "./fuzz-answer";
export type { FuzzSecrets } from "./fuzz-values";
