import { z } from "zod";
import type { ErrorCode } from "@/lib/api/http-error";
import type { Scope } from "@/lib/scopes";
import type { TagName } from "./tags";

/**
 * What a route handler declares beside itself (apiRoute(operation, handler), tokenRoute(operation,
 * handler)): everything /openapi.json and /docs say about it but its method and path, which come
 * from the export's name and the route file's folder (the route table, app/route-table.ts).
 */

export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** A method a route module may serve (HEAD follows GET; OPTIONS is routeMethods'). */
export type HttpMethod = (typeof httpMethods)[number];

/** client: HTTP Basic or the form; basic: HTTP Basic only. */
export type Auth = "bearer" | "client" | "basic" | "none";

export interface Operation {
  operationId: string;
  /** One of lib/api/openapi/tags.ts, which gives the tag's prose and place. */
  tag: TagName;
  summary: string;
  description: string;
  auth: Auth;
  /** Needs the Version header. */
  version?: boolean;
  /** Counted by the API rate limits (and so carries the X-RateLimit-* headers). */
  rateLimited?: boolean;
  /** Takes an `Idempotency-Key` header (lib/integrations/idempotency.ts). */
  idempotencyKey?: boolean;
  scope?: Scope;
  /** Documented as `/contacts/`, with the trailing slash the platform's reference uses (both answer). */
  trailingSlash?: boolean;
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  body?: { contentType: "application/json" | "application/x-www-form-urlencoded"; name: string; schema: z.ZodType };
  success: {
    status: number;
    description: string;
    contentType?: string;
    name?: string;
    schema?: z.ZodType;
  };
  /** The error codes this operation answers with, and what each means here, in check order. */
  errors: Partial<Record<ErrorCode, string>>;
  /** What a 503 (`server_error`, with Retry-After) means here, for an operation that answers one. */
  unavailable?: string;
  /** Error screens (text/html) of a screen operation, by status. */
  screenErrors?: Record<number, string>;
}

/** A route handler left out of the document on purpose, and why. */
export interface Internal {
  internal: string;
}

export type RouteDeclaration = Operation | Internal;

/**
 * A handler as the route table holds it: what it declared, or `unserved` for routeMethods' answers
 * to the methods a route does not serve.
 */
export interface Declared {
  declaration?: RouteDeclaration;
  unserved?: true;
}

export function isInternal(declaration: RouteDeclaration): declaration is Internal {
  return "internal" in declaration;
}

/** A route as the document walks it: its folder path ("/contacts/[contactId]") and its handlers by method. */
export interface DeclaredRoute {
  path: string;
  handlers: Partial<Record<string, Declared | undefined>>;
}

/**
 * A screen documented as an operation (the install screen, GET /oauth/chooselocation): its
 * `operation.ts` beside page.tsx exports `GET = screenOperation({...})`, and the route table lists it.
 */
export function screenOperation(operation: Operation): Declared {
  return { declaration: operation };
}

/** One documented screen of the route table: `page("/oauth/chooselocation", module)`. */
export function page(path: string, module: { GET: Declared }): DeclaredRoute {
  return { path, handlers: { GET: module.GET } };
}

/** A path id with its example (what /docs's curl and the tests fill in). */
export const exampleId = (example: string, description?: string) =>
  z.string().meta({ examples: [example], description });

/** The path's dynamic segments filled with the declaration's examples: what tests and /docs call. */
export function examplePath(folderPath: string, op: Operation): { path: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const path = folderPath.replace(/\[(\w+)\]/g, (_, name: string) => {
    const example = (op.pathParams?.shape[name]?.meta()?.examples as unknown[] | undefined)?.[0];
    if (typeof example !== "string") throw new Error(`${folderPath}: give ${name} an example (exampleId).`);
    params[name] = example;
    return example;
  });
  return { path, params };
}

const jwk = z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string().optional(), use: z.string().optional() });
/** A JWKS answer (the access-token keys, the webhook keys). */
export const jwksSchema = z.object({ keys: z.array(jwk) });

const bearer401 =
  "The Bearer token is missing, malformed, unknown, expired or revoked, or its private integration's Expires date has passed (WWW-Authenticate says which).";
/** Every endpoint a private-integration token may call: its Allowed IP addresses apply. */
const addressRefusal = "Or a private integration's Allowed IP addresses do not include the caller's address.";

/** The Version and Bearer errors of an endpoint that tokens unlock (lib/api/token-route.ts), then `extra`. */
export function tokenErrors(
  scope: Scope,
  forbidden: string,
  extra: Partial<Record<ErrorCode, string>> = {},
): Partial<Record<ErrorCode, string>> {
  return {
    invalid_version: "Version header missing or not an accepted date.",
    invalid_token: bearer401,
    rate_limited: "Over the app's or integration's limits on this account.",
    forbidden: `${forbidden} ${addressRefusal}`,
    insufficient_scope: `The token lacks ${scope}.`,
    ...extra,
  };
}

export { bearer401 };
