import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { methodColor } from "@/app/docs/method-colors";
import { type DirectRoute, directRouter } from "@/lib/api/direct-router";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { generatedFile, routeTableSource } from "./route-table";

/**
 * Issue 23's procedure, as a test: an endpoint is added by a route file alone. A scratch app/ folder
 * holds a new method on an existing route (DELETE /contacts/{contactId}, beside the real GET) and a
 * new route (GET /x); the generator makes its table, and the router, /openapi.json and /docs's
 * badges pick both up without another line anywhere. (The cross-tenant probe reads the modules'
 * exports, so it probes a new method by itself: app/cross-tenant.test.ts shows it on this DELETE.)
 */
const scratch = resolve("test-results", `route-table-${process.pid}`, "app");

const files: Record<string, string> = {
  "contacts/[contactId]/route.ts": `
import { z } from "zod";
import { exampleId, tokenErrors } from "@/lib/api/openapi/operation";
import { tokenRoute } from "@/lib/api/token-route";
export * from "@/app/contacts/[contactId]/route";

export const DELETE = tokenRoute<{ contactId: string }>(
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
);
`,
  "x/route.ts": `
import { apiRoute, json, otherMethods } from "@/lib/api/handler";
export const GET = apiRoute(
  { operationId: "x", tag: "Service", summary: "X", description: "A new route.", auth: "none", success: { status: 200, description: "X." }, errors: {} },
  async () => json({ x: true }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
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

describe("adding an endpoint is a route file (scripts/route-table.ts)", () => {
  it("the generated table lists every route.ts by its folder, but those left to Next.js", () => {
    expect(apiRoutes.map((r) => r.path)).toEqual(["/contacts/[contactId]", "/x"]);
    expect(readFileSync(join(scratch, generatedFile), "utf8")).toBe(routeTableSource(scratch));
  });

  it("the router serves the new method and the new route with their own handlers", async () => {
    // The declared DELETE runs tokenRoute's checks: Version first (otherMethods would say "not served").
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
    // The route's other methods are still otherMethods' answers.
    const put = await fetch(`${base}/contacts/cm3x5con0000001`, { method: "PUT" });
    expect(await put.json()).toMatchObject({ error: "invalid_request" });
  });

  it("the OpenAPI document and /docs's badges pick them up, in their tag's place", () => {
    const doc = buildOpenApiDocument(apiRoutes) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(Object.keys(doc.paths)).toEqual(["/contacts/{contactId}", "/x"]);
    expect(Object.keys(doc.paths["/contacts/{contactId}"]!)).toEqual(["get", "delete"]);
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
