import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import fc from "fast-check";
import { errorStatus } from "@/lib/api/errors";

/**
 * Request fuzzing (fast-check) shared by the in-process fuzz test (lib/api/fuzz.test.ts) and the
 * live one against a production server (scripts/stress.ts): every route handler under app/, random
 * methods, headers, content types, encodings, sizes, field types and values. The property is
 * SPEC.md's: never a 5xx, and every error is the JSON error body.
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

/** Header values must be bytes (latin-1) without CR/LF, or the Request cannot even be built. */
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constant(0x09) },
);
export const headerValue = (maxLength = 120) =>
  fc
    .array(headerChar, { maxLength })
    .map((codes) => String.fromCharCode(...codes).trim())
    .filter((v) => v.length > 0);

/** Strings meant to break parsers: unicode, NUL, percent garbage, SQL and path tricks, long runs. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "%",
    "%zz",
    "%E0%A4%A",
    "%C0%AF",
    '\'; DROP TABLE "Location"; --',
    "../../etc/passwd",
    "null",
    "undefined",
    "[object Object]",
    "-1",
    "1e309",
    "NaN",
    "true",
    "\uD800",
    "\uFFFF",
    "🙂",
    "a".repeat(5000),
    "pit-00000000-0000-0000-0000-000000000000",
    "Company",
    "Location",
    "authorization_code",
    "refresh_token",
    "+14155550123",
    "grace@example.com",
  ),
);

/** Any JSON value, including deep nesting and the wrong type for every field. */
export const anyJsonValue = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, [], {}) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 50, max: 3000 }).map((depth) => {
      // Deep nesting, built without recursion in the generator.
      let v: unknown = "x";
      for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
      return v;
    }),
  },
);

export const knownFields = [
  "grant_type",
  "client_id",
  "client_secret",
  "code",
  "refresh_token",
  "user_type",
  "redirect_uri",
  "code_verifier",
  "token",
  "token_type_hint",
  "companyId",
  "locationId",
  "appId",
  "firstName",
  "lastName",
  "email",
  "phone",
  "command",
  "flags",
  "__proto__",
  "constructor",
] as const;

export interface FuzzSecrets {
  /** Real, currently valid values, so the fuzzer reaches past authentication. */
  bearer: string[];
  clientIds: string[];
  clientSecrets: string[];
  codes: string[];
  refreshTokens: string[];
  ids: string[];
}

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

const encoder = new TextEncoder();
/** Percent-encodes like a client; lone surrogates become U+FFFD first, as any UTF-8 encoder does. */
const enc = (s: string) => encodeURIComponent(Buffer.from(s, "utf8").toString("utf8"));

function formEncode(pairs: [string, string][], breakEncoding: boolean): string {
  const text = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
  return breakEncoding ? `${text}&bad=%E0%A4%A&x=%zz%` : text;
}

function multipart(pairs: [string, string][], boundary: string): string {
  return `${pairs
    .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join("")}--${boundary}--\r\n`;
}

/** A value that a field of this name could plausibly hold, so requests get past validation. */
function plausible(field: string, secrets: FuzzSecrets): fc.Arbitrary<unknown> {
  const real = (xs: string[]) => (xs.length ? fc.constantFrom(...xs) : nastyString);
  switch (field) {
    case "grant_type":
      return fc.constantFrom("authorization_code", "refresh_token", "client_credentials");
    case "client_id":
      return real(secrets.clientIds);
    case "client_secret":
      return real(secrets.clientSecrets);
    case "code":
      return real(secrets.codes);
    case "refresh_token":
      return real(secrets.refreshTokens);
    case "token":
      return real([...secrets.bearer, ...secrets.refreshTokens]);
    case "user_type":
      return fc.constantFrom("Company", "Location");
    case "token_type_hint":
      return fc.constantFrom("access_token", "refresh_token");
    case "redirect_uri":
      return fc.constant("https://app.example.test/oauth/callback");
    case "code_verifier":
      return fc.base64String({ minLength: 43, maxLength: 64 });
    case "companyId":
    case "locationId":
    case "appId":
      return real(secrets.ids);
    case "firstName":
    case "lastName":
      return fc.constantFrom("Ada", "Grace", "Zoë", "O'Brien");
    case "email":
      return fc.oneof(
        fc.uuid().map((u) => `${u.slice(0, 8)}@example.com`),
        fc.constant("ada@example.com"),
      );
    case "phone":
      return fc.constantFrom("+14155550123", "+442071838750");
    case "command":
      return fc.constantFrom("company:create", "labs:set", "nope");
    case "flags":
      return fc.dictionary(fc.constantFrom("name", "company", "enabled"), fc.string({ maxLength: 10 }));
    default:
      return nastyString;
  }
}

/**
 * A request object: each known field maybe present, mostly with a plausible value (real ids,
 * codes and secrets), sometimes with garbage or the wrong JSON type; plus unknown fields.
 */
function fieldObject(secrets: FuzzSecrets) {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of knownFields) {
    if (field === "__proto__" || field === "constructor") continue;
    fields[field] = fc.oneof(
      { weight: 6, arbitrary: plausible(field, secrets) },
      { weight: 1, arbitrary: nastyString },
      { weight: 1, arbitrary: anyJsonValue },
    );
  }
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom("__proto__", "constructor"), nastyString), anyJsonValue), {
        maxLength: 2,
      }),
    )
    .map(([known, extra]) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of [...Object.entries(known), ...extra])
        Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    });
}

const asFormValue = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

/** A whole body: forms and JSON of plausible fields, random bytes (invalid UTF-8), huge, multipart. */
export function bodyArbitrary(secrets: FuzzSecrets, maxHuge = 2 * 1024 * 1024) {
  const object = fieldObject(secrets);
  const pairs = object.map((o) => Object.entries(o).map(([k, v]) => [k, asFormValue(v)] as [string, string]));
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc.constant({
        kind: "none",
        bytes: undefined as Uint8Array | undefined,
        contentType: undefined as string | undefined,
      }),
    },
    {
      weight: 4,
      arbitrary: fc.tuple(pairs, fc.boolean(), fc.integer({ min: 0, max: 9 })).map(([p, broken, dup]) => ({
        kind: "form",
        bytes: encoder.encode(formEncode(dup === 0 ? [...p, ...p] : p, broken && dup === 1)),
        contentType: "application/x-www-form-urlencoded",
      })),
    },
    {
      weight: 4,
      arbitrary: object.map((o) => ({
        kind: "json object",
        bytes: encoder.encode(JSON.stringify(o)),
        contentType: "application/json",
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 2048 })
        .map((bytes) => ({ kind: "random bytes", bytes, contentType: undefined })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(64 * 1024 + 1, 1024 * 1024 + 1, maxHuge), fc.integer({ min: 0, max: 255 }))
        .map(([size, byte]) => ({
          kind: `huge (${size} bytes of ${byte})`,
          bytes: new Uint8Array(size).fill(byte),
          contentType: undefined,
        })),
    },
    {
      weight: 1,
      arbitrary: anyJsonValue.map((v) => ({
        kind: "json value",
        bytes: encoder.encode(JSON.stringify(v) ?? ""),
        contentType: "application/json",
      })),
    },
    {
      weight: 1,
      arbitrary: object.map((o) => {
        // Duplicated keys, which JSON.stringify cannot write.
        const entries = Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`);
        return {
          kind: "json with duplicate keys",
          bytes: encoder.encode(`{${[...entries, ...entries].join(",")}}`),
          contentType: "application/json",
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(pairs, fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([p, junk]) => ({
        kind: "form with invalid UTF-8",
        bytes: new Uint8Array([...encoder.encode(formEncode(p, false)), 0x26, 0x78, 0x3d, ...junk, 0xc3, 0x28, 0xff]),
        contentType: "application/x-www-form-urlencoded",
      })),
    },
    {
      weight: 1,
      arbitrary: pairs.map((p) => ({
        kind: "multipart",
        bytes: encoder.encode(multipart(p, "fuzzboundary")),
        contentType: "multipart/form-data; boundary=fuzzboundary",
      })),
    },
  );
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

const allowedExtraFields = new Set(["contactId", "meta"]);
const spec = new Set(Object.keys(errorStatus));

/**
 * SPEC.md's property of one answer; returns what is wrong, or null. `text` is the raw body.
 * `secrets` (values that must never be echoed) are checked in error bodies.
 */
export function checkAnswer(
  status: number,
  headers: Headers,
  text: string,
  method: string,
  secrets: string[] = [],
): string | null {
  const traceId = headers.get("x-trace-id");
  if (status >= 500) return `a ${status} (a 5xx is a defect): ${text.slice(0, 300)}`;
  if (!traceId || !/^[0-9a-f-]{36}$/.test(traceId)) return `no x-trace-id header (got ${traceId})`;
  if (status < 400) return null;
  if (method === "HEAD") return null; // no body by definition
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `a ${status} whose body is not JSON: ${text.slice(0, 200)}`;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return `a ${status} whose body is not an object`;
  if (!headers.get("content-type")?.startsWith("application/json")) return `a ${status} without a JSON content type`;
  const { error, error_description, statusCode, traceId: bodyTrace, ...extra } = body;
  if (typeof error !== "string" || !spec.has(error) || error === "server_error")
    return `error code ${JSON.stringify(error)} is not one of SPEC.md's 4xx codes`;
  if (typeof error_description !== "string" || error_description.length < 5)
    return `error_description is not a sentence: ${JSON.stringify(error_description)}`;
  if (statusCode !== status) return `statusCode ${statusCode} differs from the HTTP status ${status}`;
  if (bodyTrace !== traceId) return `traceId ${bodyTrace} differs from x-trace-id ${traceId}`;
  const unexpected = Object.keys(extra).filter((k) => !allowedExtraFields.has(k));
  if (unexpected.length) return `unexpected fields in the error body: ${unexpected.join(", ")}`;
  if (status === 429 && !headers.get("retry-after")) return "a 429 without Retry-After";
  if (/\bat .+\(.+:\d+:\d+\)|prisma|SELECT |INSERT |node_modules/i.test(text))
    return `the error body looks like it leaks internals: ${text.slice(0, 300)}`;
  const leaked = secrets.find((s) => s.length >= 12 && text.includes(s));
  if (leaked) return `the error body echoes a secret (…${leaked.slice(-6)})`;
  return null;
}
