import { apiRoute } from "./handler";
import { HttpError } from "./http-error";
import { type Declared, type HttpMethod, httpMethods } from "./openapi/operation";

/** A method handler as a route module exports it (apiRoute, tokenRoute, noStoreRoute all are). */
export type MethodHandler = ((request: Request, context: never) => Response | Promise<Response>) & Declared;

/** The answer to a method the route does not serve, and to OPTIONS: marked `unserved` for the route table. */
export type UnservedHandler = ((request: Request) => Response | Promise<Response>) & Declared & { unserved: true };

/** What `routeMethods(served)` returns: the served handlers as given, every other method refused, and OPTIONS. */
export type RouteMethods<Served> = { [M in keyof Served & HttpMethod]: Served[M] } & {
  [M in Exclude<HttpMethod, keyof Served>]: UnservedHandler;
} & { OPTIONS: UnservedHandler & { allow: string } };

/**
 * Every method export of a route file, from its served handlers alone, so each method is written once:
 * `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ GET: apiRoute(…) })`.
 * Next.js wants a named export per method; the destructuring is the same line in every route file
 * (scripts/route-table.test.ts checks each exports them all and that `Allow` equals what it serves).
 * A method not served answers SPEC.md's JSON error body instead of Next.js's empty 405: 400
 * invalid_request (SPEC.md gives the code that one status) naming the methods to use, with `Allow`;
 * OPTIONS answers 204 with `Allow`. HEAD is Next.js's (it answers HEAD from GET), so it is in
 * `Allow` when GET is served and never exported. A key that is not a method (OPTIONS, HEAD, a typo)
 * does not compile, nor does an empty object.
 */
export function routeMethods<Served extends Partial<Record<HttpMethod, MethodHandler>>>(
  served: Served & Record<Exclude<keyof Served, HttpMethod>, never> & (keyof Served extends never ? never : unknown),
): RouteMethods<Served> {
  const names = httpMethods.filter((method) => served[method] !== undefined);
  if (names.length === 0) throw new Error("routeMethods: give at least one served method.");
  const allow = [...names, ...(names.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const refuse = Object.assign(
    apiRoute(async (request) => {
      throw new HttpError("invalid_request", `${request.method} is not served here. Use ${names.join(" or ")}.`, {
        headers: { allow },
      });
    }),
    { unserved: true as const },
  );
  // `allow` rides on the OPTIONS handler: lib/api/direct-router.ts names it for unusual methods (TRACE…).
  const options = Object.assign(
    apiRoute(async () => new Response(null, { status: 204, headers: { allow } })),
    { allow, unserved: true as const },
  );
  const methods: Record<string, MethodHandler | UnservedHandler> = { OPTIONS: options };
  for (const method of httpMethods) methods[method] = served[method] ?? refuse;
  return methods as RouteMethods<Served>;
}

/** The methods a route module serves (not `unserved`), in httpMethods' order. */
export function servedMethods(module: Partial<Record<string, unknown>>): HttpMethod[] {
  return httpMethods.filter((method) => {
    const handler = module[method];
    return typeof handler === "function" && !(handler as Declared).unserved;
  });
}
