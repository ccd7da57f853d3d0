import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as realContact from "@/app/contacts/[contactId]/route";
import { methodColor } from "@/app/docs/method-colors";
import { apiRoutes as realRoutes } from "@/app/route-table";
import { type DirectRoute, directRouter } from "@/lib/api/direct-router";
import { apiRoute, json } from "@/lib/api/handler";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { type HttpMethod, httpMethods } from "@/lib/api/openapi/operation";
import { routeMethods, servedMethods } from "@/lib/api/route-methods";
import { generatedFile, routeTableFiles, routeTableSource } from "./route-table";

/**
 * ARCHITECTURE.md › Adding an endpoint, as a test: an endpoint is added by a route file alone. A
 * scratch app/ folder holds a new method on an existing route (DELETE /contacts/{contactId}, beside
 * whatever the real route serves) and a new route (GET /x); the generator makes its table, and the
 * router, `Allow`, /openapi.json and /docs's badges pick both up without another line anywhere.
 * (The cross-tenant probe reads the modules' exports, so it probes a new method by itself.)
 */
const scratch = resolve("test-results", `route-table-${process.pid}`, "app");

const files: Record<string, string> = {
  "contacts/[contactId]/route.ts": `
import { z } from "zod";
import * as real from "@/app/contacts/[contactId]/route";
import { exampleId, type HttpMethod, tokenErrors } from "@/lib/api/openapi/operation";
import { type MethodHandler, routeMethods, servedMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";

// The real route's handlers as they are, whatever it serves today; a person would edit that file.
const served: Partial<Record<HttpMethod, MethodHandler>> = Object.fromEntries(
  servedMethods(real).map((method) => [method, real[method]]),
);

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  ...served,
  DELETE: tokenRoute<{ contactId: string }>(
  {
    scope: "contacts.write",
    level: "Location",
    operationId: "deleteContact",
    tag: "Contacts",
    summary: "Delete a contact",
    description: "A contact of the token's own sub-account; any other id is 404.",
    pathParams: z.object({ contactId: exampleId("cm3x5con0000001") }),
    success: { status: 204, description: "Deleted." },
    errors: tokenErrors("contacts.write", "An agency-level token: use a Location token.", {
      not_found: "No contact with this id in the token's sub-account.",
    }),
  },
  async () => new Response(null, { status: 204 }),
  ),
});
`,
  "x/route.ts": `
import { apiRoute, json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(
    { operationId: "x", tag: "Service", summary: "X", description: "A new route.", auth: "none", success: { status: 200, description: "X." }, errors: {} },
    async () => json({ x: true }),
  ),
});
`,
  // Left to Next.js (scripts/route-table.ts's leftToNext): never in the table.
  "api/auth/[...nextauth]/route.ts": "export {};\n",
};

let apiRoutes: DirectRoute[];
let server: Server;
let base: string;

beforeAll(async () => {
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    writeFileSync(join(scratch, file), source);
  }
  writeFileSync(join(scratch, generatedFile), routeTableSource(scratch));
  ({ apiRoutes } = await import(/* @vite-ignore */ join(scratch, generatedFile)));
  const direct = directRouter(apiRoutes, "http://localhost:3000");
  server = createServer((request, response) => {
    if (!direct(request, response)) response.writeHead(404, { "x-served-by": "next" }).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
  rmSync(dirname(scratch), { recursive: true, force: true });
});

/** The scratch /contacts/{contactId}'s methods: the real route's and the new DELETE, in httpMethods' order. */
const contactMethods = httpMethods.filter((m) => m === "DELETE" || servedMethods(realContact).includes(m));

describe("adding an endpoint is a route file (scripts/route-table.ts)", () => {
  it("the generated table lists every route.ts by its folder, but those left to Next.js", () => {
    expect(apiRoutes.map((r) => r.path)).toEqual(["/contacts/[contactId]", "/x"]);
    expect(readFileSync(join(scratch, generatedFile), "utf8")).toBe(routeTableSource(scratch));
  });

  it("the router serves the new method and the new route with their own handlers", async () => {
    // The declared DELETE runs tokenRoute's checks: Version first (an unserved method would say "not served").
    const deleted = await fetch(`${base}/contacts/cm3x5con0000001`, { method: "DELETE" });
    expect(deleted.status).toBe(400);
    expect(await deleted.json()).toMatchObject({ error: "invalid_version" });
    const unauthenticated = await fetch(`${base}/contacts/cm3x5con0000001`, {
      method: "DELETE",
      headers: { version: "2021-07-28" },
    });
    expect(unauthenticated.status).toBe(401);
    const x = await fetch(`${base}/x/`);
    expect(x.status).toBe(200);
    expect(await x.json()).toEqual({ x: true });
    // The route's other methods are still refused, and Allow names the new method with the old ones.
    const other = httpMethods.find((m) => !contactMethods.includes(m)) ?? "TRACE";
    const refused = await fetch(`${base}/contacts/cm3x5con0000001`, { method: other });
    expect(await refused.json()).toMatchObject({ error: "invalid_request" });
    expect(refused.headers.get("allow")).toBe(expectedAllow(contactMethods));
    const options = await fetch(`${base}/contacts/cm3x5con0000001`, { method: "OPTIONS" });
    expect(options.headers.get("allow")).toBe(expectedAllow(contactMethods));
  });

  it("the OpenAPI document and /docs's badges pick them up, in their tag's place", () => {
    const doc = buildOpenApiDocument(apiRoutes) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(Object.keys(doc.paths)).toEqual(["/contacts/{contactId}", "/x"]);
    expect(Object.keys(doc.paths["/contacts/{contactId}"]!)).toEqual(contactMethods.map((m) => m.toLowerCase()));
    const deleteContact = doc.paths["/contacts/{contactId}"]!.delete!;
    expect(deleteContact).toMatchObject({
      operationId: "deleteContact",
      tags: ["Contacts"],
      security: [{ bearer: ["contacts.write"] }],
      responses: { "204": expect.any(Object), "404": expect.any(Object) },
    });
    expect(deleteContact.parameters).toContainEqual(expect.objectContaining({ name: "contactId", in: "path" }));
    expect(doc.paths["/x"]!.get).toMatchObject({ operationId: "x", tags: ["Service"] });
    for (const [, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) expect(methodColor(method)).toMatch(/^bg-/);
    }
  });
});

/** The `Allow` a route serving `served` answers: HEAD beside GET (Next.js answers it from GET), and OPTIONS. */
function expectedAllow(served: readonly string[]): string {
  return [...served, ...(served.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
}

type Exports = Record<string, unknown>;
type Callable = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** What is wrong with a route module's methods, or nothing: each exported, and `Allow` saying what it serves. */
async function methodsProblems(path: string, module: Exports): Promise<string[]> {
  const problems: string[] = [];
  const served = servedMethods(module);
  const allow = expectedAllow(served);
  if (served.length === 0) problems.push(`${path} serves no method`);
  if ("HEAD" in module) problems.push(`${path} exports HEAD: Next.js answers it from GET`);
  const url = `http://localhost${path.replace(/\[(\w+)\]/g, "x_$1")}`;
  const context = { params: Promise.resolve({}) };
  for (const method of [...httpMethods, "OPTIONS"] as const) {
    const handler = module[method];
    // A method not exported gets Next.js's empty 405, not SPEC.md's error body.
    if (typeof handler !== "function") problems.push(`${path} does not export ${method}`);
    else if (method === "OPTIONS" || !served.includes(method as HttpMethod)) {
      const answer = await (handler as Callable)(new Request(url, { method }), context);
      const got = answer.headers.get("allow");
      if (got !== allow) problems.push(`${method} ${path}: Allow "${got}", but it serves ${allow}`);
      if (answer.status !== (method === "OPTIONS" ? 204 : 400)) problems.push(`${method} ${path}: ${answer.status}`);
    }
  }
  return problems;
}

describe("every real route's Allow is what it exports (lib/api/route-methods.ts)", () => {
  it.each(routeTableFiles().map((r) => [r.path, r.file] as const))("%s", async (path, file) => {
    const module = (await import(/* @vite-ignore */ file)) as Exports;
    expect(await methodsProblems(path, module)).toEqual([]);
    // The direct router answers unusual methods (TRACE…) with the same Allow.
    expect(realRoutes.find((r) => r.path === path)?.allow).toBe(expectedAllow(servedMethods(module)));
  });

  it("catches a method exported beside routeMethods, which Allow would leave out", async () => {
    const handler = apiRoute(async () => json({}));
    const module = { ...routeMethods({ GET: handler }), PATCH: handler };
    const problems = await methodsProblems("/y", module);
    expect(problems).toContain('OPTIONS /y: Allow "GET, HEAD, OPTIONS", but it serves GET, PATCH, HEAD, OPTIONS');
    expect(problems).toHaveLength(4); // POST, PUT, DELETE and OPTIONS all name the wrong Allow
  });
});
