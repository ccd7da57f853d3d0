import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { documentedRoutes } from "@/app/route-table";
import { buildOpenApiDocument } from "./document";

type Json = Record<string, unknown>;

interface ExampleCase {
  /** Where the example is, as a JSON pointer into the document. */
  at: string;
  schema: Json;
  value: unknown;
}

const isObject = (node: unknown): node is Json => !!node && typeof node === "object" && !Array.isArray(node);
const pointer = (path: string[]) => `#/${path.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

/**
 * Every example in the document with the schema it illustrates: a media type's or parameter's
 * `example` and `examples[…].value` against its `schema`, and a schema's own `examples`.
 */
function examplesOf(node: unknown, path: string[] = [], out: ExampleCase[] = []): ExampleCase[] {
  if (Array.isArray(node)) {
    node.forEach((child, i) => {
      examplesOf(child, [...path, String(i)], out);
    });
    return out;
  }
  if (!isObject(node)) return out;
  const schema = node.schema;
  if (isObject(schema)) {
    if ("example" in node) out.push({ at: pointer([...path, "example"]), schema, value: node.example });
    if (isObject(node.examples)) {
      for (const [name, example] of Object.entries(node.examples)) {
        if (isObject(example) && "value" in example)
          out.push({ at: pointer([...path, "examples", name]), schema, value: example.value });
      }
    }
  }
  // A JSON Schema's own `examples` keyword (an array), as zod's .meta({ examples }) writes it.
  if (Array.isArray(node.examples) && ("type" in node || "$ref" in node || "enum" in node)) {
    node.examples.forEach((value, i) => {
      out.push({ at: pointer([...path, "examples", String(i)]), schema: node, value });
    });
  }
  for (const [key, child] of Object.entries(node)) examplesOf(child, [...path, key], out);
  return out;
}

describe("the OpenAPI document's examples", () => {
  const document = buildOpenApiDocument(documentedRoutes);
  const cases = examplesOf(document);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  it("has examples to check (error bodies, path ids, the Version header…)", () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases.map((c) => [c.at, c] as const))("%s matches its own schema", (_at, { schema, value }) => {
    // References point into the document's components: validate with them beside the schema.
    const validate = ajv.compile({ ...schema, components: document.components });
    const valid = validate(value);
    expect(validate.errors ?? [], JSON.stringify(value)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("would catch an example that contradicts its schema", () => {
    const validate = ajv.compile({
      $ref: "#/components/schemas/Error",
      components: document.components,
    });
    expect(validate({ error: "teapot", error_description: "x", statusCode: 418, traceId: "not-a-uuid" })).toBe(false);
  });
});
