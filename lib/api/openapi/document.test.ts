import { describe, expect, it } from "vitest";
import { apiRoutes, documentedRoutes } from "@/app/route-table";
import { errorStatus } from "@/lib/api/http-error";
import { apiClient } from "@/lib/testing/api-client";
import { placedOperations } from "./document";
import { errorCatalog } from "./error-catalog";
import { isInternal } from "./operation";
import { tags } from "./tags";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked loosely
type Doc = any;

async function servedDocument(): Promise<Doc> {
  const response = await apiClient(apiRoutes).get("/openapi.json");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return JSON.parse(response.text);
}

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document whose every $ref resolves", async () => {
    const doc = await servedDocument();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref") refs.push(v as string);
        else walk(v);
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split("/").pop()!], ref).toBeDefined();
    }
    for (const [path, item] of Object.entries<Doc>(doc.paths)) {
      expect(path).toMatch(/^\//);
      for (const [method, op] of Object.entries<Doc>(item)) {
        expect(["get", "post", "put", "patch", "delete"]).toContain(method);
        expect(op.operationId).toEqual(expect.any(String));
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const p of op.parameters) expect(["path", "query", "header"]).toContain(p.in);
        const placeholders = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        expect(op.parameters.filter((p: Doc) => p.in === "path").map((p: Doc) => p.name)).toEqual(placeholders);
      }
    }
  });

  it("documents every method every route of the table serves, but those that say why they are internal", async () => {
    const doc = await servedDocument();
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Doc>(doc.paths)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path.replace(/\/$/, "")}`);
    }
    const undeclared: string[] = [];
    const served: string[] = [];
    for (const route of apiRoutes) {
      const path = route.path.replace(/\[(\w+)\]/g, "{$1}");
      for (const [method, handler] of Object.entries(route.handlers)) {
        if (handler.unserved) continue;
        const declaration = handler.declaration;
        if (!declaration) undeclared.push(`${method} ${route.path}`);
        else if (isInternal(declaration)) expect(declaration.internal.length, `${method} ${path}`).toBeGreaterThan(10);
        else {
          served.push(`${method} ${path}`);
          expect(documented, `${method} ${path}`).toContain(`${method} ${path}`);
        }
      }
    }
    // A handler that declares nothing (apiRoute(handler) as a route's method) is neither: it must say.
    expect(undeclared).toEqual([]);
    expect(served.length).toBeGreaterThan(10);
    for (const route of [
      "POST /contacts",
      "GET /locations/{locationId}",
      "POST /oauth/token",
      "GET /.well-known/jwks.json",
    ]) {
      expect(documented).toContain(route);
    }
  });

  it("names only described tags, ordered by tags.ts; a tag's `first` names its own operations; operationIds are unique", () => {
    const placed = placedOperations(documentedRoutes);
    const ids = placed.map((p) => p.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const order = tags.map((t) => t.name);
    const shown = placed.map((p) => order.indexOf(p.op.tag));
    expect(shown).not.toContain(-1);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    for (const tag of tags) {
      for (const id of tag.first ?? []) {
        expect(placed.find((p) => p.op.operationId === id)?.op.tag, `${tag.name} first: ${id}`).toBe(tag.name);
      }
    }
    const undescribed = { ...placed[0]!.op, tag: "Nowhere" } as unknown as (typeof placed)[number]["op"];
    expect(() => placedOperations([{ path: "/nowhere", handlers: { GET: { declaration: undescribed } } }])).toThrow(
      /Tag "Nowhere" is not described/,
    );
  });

  it("documents every error code with its meaning and an example, and each operation's errors", async () => {
    const doc = await servedDocument();
    const codes = doc["x-error-codes"].map((e: Doc) => e.code);
    expect(codes.sort()).toEqual(Object.keys(errorStatus).sort());
    for (const entry of doc["x-error-codes"]) {
      expect(entry.status).toBe(errorStatus[entry.code as keyof typeof errorStatus]);
      expect(entry.meaning.length).toBeGreaterThan(20);
      expect(entry.example).toMatchObject({
        error: entry.code,
        statusCode: entry.status,
        error_description: expect.any(String),
      });
    }
    expect(Object.keys(errorCatalog).sort()).toEqual(Object.keys(errorStatus).sort());
    const create = doc.paths["/contacts/"].post;
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "409", "429", "500", "503"]);
    // A failover's gap (lib/api/database-unavailable.ts): 503 with Retry-After on every operation.
    expect(create.responses["503"].headers["Retry-After"]).toBeDefined();
    expect(Object.keys(create.responses["403"].content["application/json"].examples).sort()).toEqual([
      "forbidden",
      "insufficient_scope",
    ]);
    expect(create.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(create.responses["201"].headers["X-RateLimit-Remaining"]).toBeDefined();
    // /oauth/locationToken is counted like the API.
    const exchange = doc.paths["/oauth/locationToken"].post;
    expect(exchange["x-rate-limited"]).toBe(true);
    expect(exchange.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(exchange.responses["200"].headers["X-RateLimit-Remaining"]).toBeDefined();
    expect(create.parameters).toContainEqual(
      expect.objectContaining({
        name: "Version",
        in: "header",
        required: true,
        schema: { type: "string", enum: ["2021-04-15", "2021-07-28", "2023-02-21"] },
      }),
    );
    expect(doc["x-check-order"].length).toBeGreaterThan(5);
  });

  it("the request and response schemas are the routes' own zod schemas", async () => {
    const doc = await servedDocument();
    const newContact = doc.components.schemas.NewContact;
    expect(newContact.required.sort()).toEqual(["email", "firstName", "lastName", "locationId", "phone"]);
    expect(newContact.additionalProperties).toBe(false);
    expect(newContact.properties.phone.pattern).toBe("^\\+[1-9]\\d{1,14}$");
    expect(newContact.properties.email.format).toBe("email");
    const contact = doc.paths["/contacts/"].post.responses["201"].content["application/json"].schema;
    expect(doc.components.schemas[contact.$ref.split("/").pop()].properties.contact.properties).toHaveProperty(
      "createdAt",
    );
  });
});
