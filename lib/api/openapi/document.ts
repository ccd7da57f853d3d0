// Over 250 lines on purpose: the document builder and its JSON Schema conversion belong together.
import { z } from "zod";
import { checkOrder } from "@/lib/api/check-order";
import { type ErrorCode, errorStatus } from "@/lib/api/http-error";
import { BURST_WINDOW_MS, currentLimits } from "@/lib/api/rate-limit";
import { apiVersions } from "@/lib/api/version";
import { installationUpdatedEventSchema } from "@/lib/apps/installation-updates";
import { appUrl } from "@/lib/env";
import { errorCatalog, errorExample } from "./error-catalog";
import { type DeclaredRoute, type HttpMethod, httpMethods, isInternal, type Operation } from "./operation";
import { type TagName, tags } from "./tags";

/**
 * The OpenAPI 3.1 document of the whole app, generated from the operations the route table's
 * handlers declare (app/route-table.ts) and the error catalog.
 */

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, as requests send or responses carry it. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  delete out.$schema;
  return simplify(out) as Json;
}

// zod's date-time regex says no more than `format: date-time` does, and buries the reference.
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "pattern" && (node as Json).format === "date-time") continue;
    out[k] = simplify(v);
  }
  return out;
}

function parameters(op: Operation): Json[] {
  const params: Json[] = [];
  const add = (where: "path" | "query", shape: z.ZodObject | undefined) => {
    if (!shape) return;
    const schema = jsonSchema(shape, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property;
      params.push({
        name,
        in: where,
        required: where === "path" || (schema.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  };
  add("path", op.pathParams);
  add("query", op.query);
  if (op.version) {
    params.push({
      name: "Version",
      in: "header",
      required: true,
      description: "The API version: one of the platform's dated versions.",
      schema: { type: "string", enum: [...apiVersions] },
      example: "2021-07-28",
    });
  }
  if (op.idempotencyKey) {
    params.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes a retry safe: sent again by the same integration within 24 hours with the same request, it answers the first answer (the same token) and changes nothing; with another request, 409 conflict. 1 to 200 visible ASCII characters, e.g. a UUID.",
      schema: { type: "string", minLength: 1, maxLength: 200, pattern: "^[!-~]+$" },
      example: "5f0c6b1e-2f7a-4b52-9a43-0d8f3c1e7a90",
    });
  }
  return params;
}

const rateLimitHeaders: Record<string, Json> = {
  "X-RateLimit-Limit-Daily": { description: "Requests allowed per UTC day.", schema: { type: "integer" } },
  "X-RateLimit-Daily-Remaining": {
    description: "Requests left today (after authentication).",
    schema: { type: "integer" },
  },
  "X-RateLimit-Interval-Milliseconds": { description: "The burst window: 10000.", schema: { type: "integer" } },
  "X-RateLimit-Max": { description: "Requests allowed per burst window.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": {
    description: "Requests left in this window (after authentication).",
    schema: { type: "integer" },
  },
};
const traceHeader = {
  "x-trace-id": { description: "Equals the body's traceId where there is one.", schema: { type: "string" } },
};

function errorResponses(op: Operation): Record<string, Json> {
  const codes: Partial<Record<ErrorCode, string>> = {
    ...op.errors,
    server_error: "A defect on our side.",
    temporarily_unavailable:
      "The database cannot be used for a moment (a failover or a restart): retry after Retry-After.",
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(codes) as ErrorCode[]) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const lines = list.map((code) => `\`${code}\`: ${codes[code]}`);
    const headers: Json = { ...traceHeader };
    if (op.rateLimited) Object.assign(headers, rateLimitHeaders);
    if (status === 429)
      headers["Retry-After"] = { description: "Seconds until the window ends.", schema: { type: "integer" } };
    if (status === 503)
      headers["Retry-After"] = { description: "Seconds to wait before retrying.", schema: { type: "integer" } };
    if ((status === 401 || status === 403) && op.auth === "bearer") {
      headers["WWW-Authenticate"] = {
        description: 'RFC 6750 §3: Bearer error="<code>", error_description="…"[, scope="…"].',
        schema: { type: "string" },
      };
    }
    responses[String(status)] = {
      description: lines.join("\n\n"),
      headers,
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          examples: Object.fromEntries(
            list.map((code) => [code, { summary: codes[code], value: errorExample(code, status) }]),
          ),
        },
      },
    };
  }
  if (op.unavailable) {
    responses["503"] = {
      description: `\`server_error\`: ${op.unavailable}`,
      headers: {
        ...traceHeader,
        "Retry-After": { description: "Seconds to wait before asking again.", schema: { type: "integer" } },
      },
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          examples: {
            server_error: {
              summary: op.unavailable,
              value: { ...errorExample("server_error", 503), error_description: op.unavailable },
            },
          },
        },
      },
    };
  }
  return responses;
}

/** An operation where the document shows it: its method and its path as OpenAPI spells it. */
interface Placed {
  method: HttpMethod;
  /** The route table's path, by whose order operations of a tag are shown. */
  folderPath: string;
  path: string;
  op: Operation;
}

/** "/contacts/[contactId]" → "/contacts/{contactId}" (and "/contacts/" when the operation asks). */
function openApiPath(folderPath: string, op: Operation): string {
  const path = folderPath.replace(/\[(\w+)\]/g, "{$1}");
  return op.trailingSlash ? `${path}/` : path;
}

/**
 * The operations of `routes`, in the document's order: by tag in lib/api/openapi/tags.ts's order;
 * within a tag, the tag's `first` in that order, then the others by path, then by method.
 */
export function placedOperations(routes: readonly DeclaredRoute[]): Placed[] {
  const placed: Placed[] = [];
  for (const route of routes) {
    for (const method of httpMethods) {
      const declaration = route.handlers[method]?.declaration;
      if (!declaration || isInternal(declaration)) continue;
      placed.push({ method, folderPath: route.path, path: openApiPath(route.path, declaration), op: declaration });
    }
  }
  const tagIndex = (tag: TagName) => {
    const index = tags.findIndex((t) => t.name === tag);
    if (index < 0) throw new Error(`Tag "${tag}" is not described in lib/api/openapi/tags.ts.`);
    return index;
  };
  const firstIndex = (op: Operation) => {
    const first = tags[tagIndex(op.tag)]?.first ?? [];
    const index = first.indexOf(op.operationId);
    return index < 0 ? first.length : index;
  };
  for (const { op } of placed) tagIndex(op.tag);
  const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return placed.sort(
    (a, b) =>
      tagIndex(a.op.tag) - tagIndex(b.op.tag) ||
      firstIndex(a.op) - firstIndex(b.op) ||
      byCodeUnit(a.folderPath, b.folderPath) ||
      httpMethods.indexOf(a.method) - httpMethods.indexOf(b.method),
  );
}

export function buildOpenApiDocument(routes: readonly DeclaredRoute[]): Json {
  const operations = placedOperations(routes);
  const schemas: Json = {};
  const ref = (name: string, schema: z.ZodType, io: "input" | "output") => {
    schemas[name] ??= jsonSchema(schema, io);
    return { $ref: `#/components/schemas/${name}` };
  };
  const paths: Record<string, Json> = {};
  for (const { method, path, op } of operations) {
    const headers: Json = { ...traceHeader };
    if (op.rateLimited) Object.assign(headers, rateLimitHeaders);
    // apiRoute answers no-store unless the route sets its own: only the public documents do. A
    // screen (text/html) is Next.js's page, not an apiRoute.
    const publicDocument = path.startsWith("/.well-known/") || path === "/openapi.json";
    if (op.success.contentType !== "text/html") {
      const value = publicDocument ? "public, max-age=300" : "no-store";
      headers["Cache-Control"] = { description: value, schema: { type: "string", const: value } };
    }
    const content = op.success.schema
      ? {
          [op.success.contentType ?? "application/json"]: {
            schema: ref(op.success.name ?? op.operationId, op.success.schema, "output"),
          },
        }
      : op.success.contentType
        ? { [op.success.contentType]: {} }
        : undefined;
    const security =
      op.auth === "bearer"
        ? [{ bearer: op.scope ? [op.scope] : [] }]
        : op.auth === "client"
          ? [{ clientSecretBasic: [] }, {}]
          : op.auth === "basic"
            ? [{ clientSecretBasic: [] }]
            : [];
    paths[path] ??= {};
    (paths[path] as Json)[method.toLowerCase()] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: op.scope ? `${op.description}\n\nScope: \`${op.scope}\`.` : op.description,
      security,
      ...(op.rateLimited ? { "x-rate-limited": true } : {}),
      parameters: parameters(op),
      ...(op.body
        ? {
            requestBody: {
              required: true,
              content: { [op.body.contentType]: { schema: ref(op.body.name, op.body.schema, "input") } },
            },
          }
        : {}),
      responses: {
        [String(op.success.status)]: { description: op.success.description, headers, ...(content ? { content } : {}) },
        ...errorResponses(op),
        ...Object.fromEntries(
          Object.entries(op.screenErrors ?? {}).map(([status, description]) => [
            status,
            { description, headers: traceHeader, content: { "text/html": {} } },
          ]),
        ),
      },
    };
  }
  const limits = currentLimits();
  return {
    openapi: "3.1.0",
    info: {
      title: "Token service API",
      version: "1.0.0",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description: [
        "The authorization and token service of a platform with agencies (token type Company) and sub-accounts (Location).",
        "",
        'Every error is JSON: `{"error", "error_description", "statusCode", "traceId"}`; the codes are listed under `x-error-codes` and in each response. Paths answer with and without a trailing slash, never redirecting. A method a path does not serve is 400 `invalid_request` with an Allow header (TRACE and other unusual methods too); OPTIONS answers 204 with Allow. A path with `//` is answered as the path with single slashes, never redirected. A body declared larger than the endpoint takes (64 KB for forms, 1 MB for JSON) is refused (400 `invalid_request`) before it is read. Every answer has `Cache-Control: no-store` except the public documents (/.well-known/*, /openapi.json): `public, max-age=300`.',
        "",
        `Rate limits (endpoints marked x-rate-limited): ${limits.burst || "no"} requests per ${BURST_WINDOW_MS / 1000} seconds and ${limits.daily || "no"} per UTC day, per app or private integration per sub-account or agency; 0 in RATE_LIMIT_BURST or RATE_LIMIT_DAILY turns one off (its headers are then left out).`,
        "",
        "Order of checks on the endpoints that tokens unlock (the first failing one answers):",
        ...checkOrder.map((step, i) => `${i + 1}. ${step}`),
        "",
        "Not documented, on purpose (internal): /api/auth/* (sign-in for the admin screens), /api/operator, and /api/bench/db-time (routed only in the build npm run bench makes for itself).",
      ].join("\n"),
    },
    servers: [{ url: appUrl() }],
    tags: tags
      .filter((tag) => operations.some(({ op }) => op.tag === tag.name))
      .map(({ name, description }) => ({ name, description })),
    paths,
    // OpenAPI 3.1: the requests the service sends to an app's webhook URL.
    webhooks: {
      INSTALLATION_UPDATED: {
        post: {
          operationId: "installationUpdatedEvent",
          tags: ["Webhooks"],
          summary: "An installation moved to a newer version of the app",
          description:
            "Sent once per installation when an admin of the place approves a version that adds scopes (Review update on /marketplace), or at once when a version only removes scopes. Signed like every event (webhook-id, webhook-timestamp, webhook-signature v1 under the app's webhook secret and v1a under the platform key, x-ghl-signature). The next refresh and /oauth/locationToken carry `scopes` and `versionId`; nothing is reinstalled.",
          security: [],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: ref("InstallationUpdatedEvent", installationUpdatedEventSchema, "output"),
              },
            },
          },
          responses: { "200": { description: "Any 2xx answer within the timeout acknowledges the event." } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "An access token (ES256 JWT from POST /oauth/token or /oauth/locationToken) or a private-integration token (pit-…). Scopes are checked per endpoint.",
        },
        clientSecretBasic: {
          type: "http",
          scheme: "basic",
          description:
            "client_id:client_secret (client_secret_basic). The alternatives send form fields, so those operations also list an empty requirement: client_secret_post (client_id and client_secret), and private_key_jwt (RFC 7523: client_assertion_type urn:ietf:params:oauth:client-assertion-type:jwt-bearer and client_assertion, a JWT signed ES256 or RS256 by one of the app's keys; iss and sub the client_id, aud the token endpoint or the issuer, exp at most 5 minutes ahead, a jti accepted once). grant_type=client_credentials accepts only private_key_jwt.",
        },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "error_description", "statusCode", "traceId"],
          properties: {
            error: { type: "string", enum: Object.keys(errorStatus) },
            error_description: { type: "string", description: "A sentence a person can act on." },
            statusCode: { type: "integer" },
            traceId: { type: "string", format: "uuid" },
            contactId: { type: "string", description: "409 on POST /contacts/: the existing contact's id." },
            meta: {
              type: "object",
              description: "409 on POST /contacts/: the platform's shape of the same facts.",
              properties: { contactId: { type: "string" }, matchingField: { type: "string", enum: ["email"] } },
            },
          },
        },
        ...schemas,
      },
    },
    "x-error-codes": (Object.keys(errorStatus) as ErrorCode[]).map((code) => ({
      code,
      status: errorStatus[code],
      meaning: errorCatalog[code].meaning,
      example: errorExample(code),
    })),
    "x-check-order": checkOrder,
  };
}
