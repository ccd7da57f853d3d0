import { describe, expect, it } from "vitest";
import { documentedRoutes } from "@/app/route-table";
import { buildOpenApiDocument } from "./document";
import { apiReference, internalWords, type ReferenceOperation } from "./reference";

/** The smallest document apiReference reads, with `paths` and schemas of the test's own. */
function documentWith(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, description = "Intro.") {
  return {
    openapi: "3.1.0",
    info: { title: "T", version: "1", description },
    tags: [{ name: "A" }, { name: "B" }],
    paths,
    components: { schemas },
    "x-error-codes": [{ code: "not_found", status: 404, meaning: "No such thing.", example: { error: "not_found" } }],
  };
}

const operation = (extra: Record<string, unknown> = {}) => ({
  tags: ["A"],
  summary: "Do it",
  description: "First.\n\nSecond.",
  security: [],
  parameters: [],
  responses: { "200": { description: "Done." } },
  ...extra,
});

const only = (paths: Record<string, unknown>, schemas?: Record<string, unknown>): ReferenceOperation => {
  const operations = apiReference(documentWith(paths, schemas)).tags.flatMap((t) => t.operations);
  expect(operations).toHaveLength(1);
  return operations[0]!;
};

describe("apiReference: what /docs shows of the OpenAPI document", () => {
  it("reads the real document: every operation once, under its tag, with an anchor of its own", () => {
    const doc = buildOpenApiDocument(documentedRoutes) as { paths: Record<string, Record<string, unknown>> };
    const reference = apiReference(doc);
    const shown = reference.tags.flatMap((t) => t.operations);
    const inDocument = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(shown).toHaveLength(inDocument.length);
    expect(new Set(shown.map((op) => op.id)).size).toBe(shown.length);
    for (const op of shown)
      expect(op.curl, op.id).toMatch(new RegExp(`^curl -X ${op.method.toUpperCase()} "\\$BASE_URL`));
    expect(reference.errors.map((e) => e.code)).toContain("insufficient_scope");
  });

  it("shows no internal word anywhere, though the document names them for its machine readers", () => {
    const doc = buildOpenApiDocument(documentedRoutes);
    expect(JSON.stringify(doc)).toContain("/api/bench");
    const shown = JSON.stringify(apiReference(doc));
    for (const word of internalWords) expect(shown).not.toContain(word);
  });

  it("splits the introduction into paragraphs and numbered lists, leaving out those naming internal words", () => {
    const intro = "Hello `x`.\n\nChecks:\n1. One.\n2. Two.\n\nPlain.\n\nInternal: /api/bench/db-time and SPEC.md.";
    const reference = apiReference(documentWith({}, {}, intro));
    expect(reference.intro).toBe("Hello `x`.");
    expect(reference.blocks).toEqual([
      { kind: "list", lead: "Checks:", items: ["One.", "Two."] },
      { kind: "paragraph", text: "Plain." },
    ]);
    expect(reference.errors).toEqual([
      { code: "not_found", status: 404, meaning: "No such thing.", example: '{\n  "error": "not_found"\n}' },
    ]);
  });

  it("groups operations by tag in the document's order, with their auth, scope and anchors", () => {
    const reference = apiReference(
      documentWith({
        "/b/{bId}": { get: operation({ tags: ["B"], security: [{ bearer: ["b.read"] }], "x-rate-limited": true }) },
        "/a": { post: operation({ security: [{ clientSecretBasic: [] }, {}] }) },
      }),
    );
    expect(reference.tags.map((t) => [t.name, t.operations.map((op) => op.id)])).toEqual([
      ["A", ["post-a"]],
      ["B", ["get-b-bId"]],
    ]);
    const [a, b] = reference.tags.map((t) => t.operations[0]!);
    expect(a).toMatchObject({ auth: expect.stringMatching(/^Client credentials/), scopes: [], rateLimited: false });
    expect(b).toMatchObject({ auth: expect.stringMatching(/^Bearer token/), scopes: ["b.read"], rateLimited: true });
    expect(b?.paragraphs).toEqual(["First.", "Second."]);
  });

  it("writes a curl call with the auth, required headers and query, and the required JSON fields", () => {
    const op = only(
      {
        "/contacts/{contactId}": {
          put: operation({
            security: [{ bearer: ["contacts.write"] }],
            parameters: [
              { name: "Version", in: "header", required: true, schema: { type: "string", const: "2021-07-28" } },
              { name: "q", in: "query", required: true, schema: { type: "string" } },
              { name: "page", in: "query", schema: { type: "integer" } },
            ],
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Body" } } } },
          }),
        },
      },
      {
        Body: {
          type: "object",
          required: ["email", "kind"],
          properties: { email: { type: "string", examples: ["a@b.c"] }, kind: { enum: ["x", "y"] }, note: {} },
        },
      },
    );
    expect(op.curl).toBe(
      [
        'curl -X PUT "$BASE_URL/contacts/$CONTACT_ID?q=…"',
        '-H "Authorization: Bearer $TOKEN"',
        '-H "Version: 2021-07-28"',
        '-H "Content-Type: application/json"',
        `-d '{"email":"a@b.c","kind":"x"}'`,
      ].join(" \\\n  "),
    );
  });

  it("writes a form body's fields as --data-urlencode, the first three when none is required", () => {
    const op = only({
      "/oauth/token": {
        post: operation({
          security: [{ clientSecretBasic: [] }, {}],
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: { type: "object", properties: { a: { const: "1" }, b: {}, c: {}, d: {} } },
              },
            },
          },
        }),
      },
    });
    expect(op.curl.split(" \\\n  ")).toEqual([
      'curl -X POST "$BASE_URL/oauth/token"',
      '-u "$CLIENT_ID:$CLIENT_SECRET"',
      '--data-urlencode "a=1"',
      '--data-urlencode "b=…"',
      '--data-urlencode "c=…"',
    ]);
  });

  it("describes fields: references resolved, types in a line, notes with constraints, nested objects", () => {
    const op = only(
      {
        "/x": {
          post: operation({
            parameters: [
              {
                name: "id",
                in: "path",
                required: true,
                description: "The id.",
                schema: { type: "string", minLength: 1 },
              },
            ],
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/X" } } } },
            responses: {
              "201": {
                description: "Made.",
                content: { "application/json": { schema: { type: "array", items: { type: "string" } } } },
              },
              "404": {
                description: "Gone.\n\nReally.",
                content: { "application/json": { schema: { $ref: "#/components/schemas/X" } } },
              },
            },
          }),
        },
      },
      {
        X: {
          type: "object",
          required: ["at"],
          properties: {
            at: { type: "string", format: "date-time", description: "When." },
            mail: { type: "string", format: "email", pattern: ".+@.+", maxLength: 9 },
            either: { anyOf: [{ type: "string" }, { type: "null" }] },
            inner: { type: "object", properties: { n: { type: ["integer", "null"], examples: [3] } } },
          },
        },
      },
    );
    expect(op.parameters).toEqual([
      { name: "id", in: "path", required: true, type: "string", notes: "The id.; min 1 chars" },
    ]);
    expect(op.body).toEqual({
      contentType: "application/json",
      fields: {
        kind: "fields",
        rows: [
          { name: "at", required: true, type: "string (date-time)", notes: "When." },
          { name: "mail", required: false, type: "string (email)", notes: "max 9 chars" },
          { name: "either", required: false, type: "string | null", notes: "" },
          {
            name: "inner",
            required: false,
            type: "object",
            notes: "",
            nested: { kind: "fields", rows: [{ name: "n", required: false, type: "integer | null", notes: "e.g. 3" }] },
          },
        ],
      },
    });
    expect(op.responses).toEqual([
      { status: "201", isError: false, lines: ["Made."], fields: { kind: "type", type: "array of string" } },
      { status: "404", isError: true, lines: ["Gone.", "Really."] },
    ]);
  });

  it("refuses a document whose shape changed, naming the field", () => {
    const broken = documentWith({ "/x": { get: operation({ summary: 42 }) } });
    expect(() => apiReference(broken)).toThrow(/summary/);
    expect(() => apiReference({})).toThrow(/paths/);
  });
});
