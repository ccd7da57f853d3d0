import type { z } from "zod";
import {
  type content,
  documentSchema,
  type OpenApiDocument,
  type OperationObject,
  type SchemaNode,
} from "./document-shape";

/**
 * What /docs shows of the OpenAPI document (./document.ts), read into plain typed values so the
 * page only renders: the introduction, the operations by tag with their fields, curl examples and
 * responses, and the error codes. The document is parsed (./document-shape.ts) for the parts read
 * here, so a change of its shape fails the tests beside this file instead of rendering `undefined`.
 */

/**
 * Words of the service's own workings (its specification, the bench's endpoint): the document may
 * name them for its machine readers; a paragraph of its introduction naming one is not shown on /docs.
 */
export const internalWords = ["SPEC.md", "/api/bench"] as const;

export type Fields = { kind: "type"; type: string } | { kind: "fields"; rows: FieldRow[] };
export interface FieldRow {
  name: string;
  required: boolean;
  type: string;
  notes: string;
  nested?: Fields;
}

export interface ParameterRow {
  name: string;
  in: string;
  required: boolean;
  type: string;
  notes: string;
}

export interface ResponseEntry {
  status: string;
  isError: boolean;
  lines: string[];
  fields?: Fields;
}

export interface ReferenceOperation {
  /** The anchor the navigation links to. */
  id: string;
  method: string;
  path: string;
  summary: string;
  paragraphs: string[];
  auth: string;
  scopes: string[];
  rateLimited: boolean;
  parameters: ParameterRow[];
  body?: { contentType: string; fields: Fields };
  curl: string;
  responses: ResponseEntry[];
}

export type IntroBlock = { kind: "paragraph"; text: string } | { kind: "list"; lead: string; items: string[] };

export interface Reference {
  title: string;
  openapi: string;
  version: string;
  intro: string;
  blocks: IntroBlock[];
  tags: { name: string; operations: ReferenceOperation[] }[];
  errors: { code: string; status: number; meaning: string; example: string }[];
}

/** The reference /docs renders, from the document /openapi.json serves. */
export function apiReference(document: unknown): Reference {
  const doc = documentSchema.parse(document);
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ op, view: operationView(doc, method, path, op) })),
  );
  const [intro = "", ...rest] = doc.info.description.split("\n\n");
  return {
    title: doc.info.title,
    openapi: doc.openapi,
    version: doc.info.version,
    intro,
    blocks: rest.filter((block) => !internalWords.some((word) => block.includes(word))).map(introBlock),
    tags: doc.tags.map(({ name }) => ({
      name,
      operations: operations.filter(({ op }) => op.tags.includes(name)).map(({ view }) => view),
    })),
    errors: doc["x-error-codes"].map(({ code, status, meaning, example }) => ({
      code,
      status,
      meaning,
      example: JSON.stringify(example, null, 2),
    })),
  };
}

function introBlock(block: string): IntroBlock {
  const lines = block.split("\n");
  const items = lines.filter((line) => /^\d+\. /.test(line));
  if (!items.length) return { kind: "paragraph", text: block };
  return { kind: "list", lead: lines[0] ?? "", items: items.map((item) => item.replace(/^\d+\. /, "")) };
}

function operationView(doc: OpenApiDocument, method: string, path: string, op: OperationObject): ReferenceOperation {
  const requirement = op.security[0];
  const body = firstContent(op.requestBody?.content);
  return {
    id: `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-").replace(/-+$/, ""),
    method,
    path,
    summary: op.summary,
    paragraphs: op.description.split("\n\n"),
    auth: requirement?.bearer
      ? "Bearer token (access token or pit- private-integration token)"
      : requirement?.clientSecretBasic
        ? "Client credentials (HTTP Basic or client_id and client_secret in the form)"
        : "None",
    scopes: requirement?.bearer ?? [],
    rateLimited: op["x-rate-limited"] === true,
    parameters: op.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required === true,
      type: typeOf(p.schema),
      notes: notes(p.description, p.schema),
    })),
    body: body && { contentType: body.type, fields: fields(doc, body.schema) },
    curl: curlExample(doc, method, path, op),
    responses: Object.entries(op.responses).map(([status, response]) => {
      const isError = Number(status) >= 400;
      const schema = firstContent(response.content)?.schema;
      return {
        status,
        isError,
        lines: response.description.split("\n\n"),
        ...(!isError && schema ? { fields: fields(doc, schema) } : {}),
      };
    }),
  };
}

function firstContent(byType: z.infer<typeof content> | undefined) {
  const [type, media] = Object.entries(byType ?? {})[0] ?? [];
  return type === undefined ? undefined : { type, schema: media?.schema };
}

function resolve(doc: OpenApiDocument, schema: SchemaNode | undefined): SchemaNode | undefined {
  if (schema?.$ref) return doc.components.schemas[schema.$ref.split("/").pop() ?? ""];
  return schema;
}

/** A schema's type as one line: `"a" | "b"`, `array of string`, `string (date-time)`. */
export function typeOf(schema: SchemaNode | undefined): string {
  if (!schema) return "any";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  if (type === "array") return `array of ${typeOf(schema.items)}`;
  return schema.format ? `${type} (${schema.format})` : type;
}

function notes(description: string | undefined, schema: SchemaNode | undefined): string {
  const out: string[] = description ? [description] : [];
  if (schema?.minLength !== undefined) out.push(`min ${schema.minLength} chars`);
  if (schema?.maxLength !== undefined) out.push(`max ${schema.maxLength} chars`);
  if (schema?.pattern && schema.format !== "email") out.push(`pattern ${schema.pattern}`);
  if (schema?.examples?.length) out.push(`e.g. ${JSON.stringify(schema.examples[0])}`);
  return out.join("; ");
}

function fields(doc: OpenApiDocument, schema: SchemaNode | undefined): Fields {
  const resolved = resolve(doc, schema);
  const properties = Object.entries(resolved?.properties ?? {});
  if (!properties.length) return { kind: "type", type: typeOf(resolved) };
  const required = new Set(resolved?.required ?? []);
  return {
    kind: "fields",
    rows: properties.map(([name, property]) => {
      const object = property.type === "object";
      return {
        name,
        required: required.has(name),
        type: object ? "object" : typeOf(property),
        notes: notes(property.description, property),
        ...(object && property.properties ? { nested: fields(doc, property) } : {}),
      };
    }),
  };
}

/** A copy-paste curl call of an operation: its auth, required headers and query, and required body fields. */
function curlExample(doc: OpenApiDocument, method: string, path: string, op: OperationObject): string {
  const variable = (name: string) => `$${name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()}`;
  const query = op.parameters.filter((p) => p.in === "query" && p.required);
  const url = `$BASE_URL${path.replace(/\{(\w+)\}/g, (_m, name: string) => variable(name))}`;
  const lines = [
    `curl -X ${method.toUpperCase()} "${url}${query.length ? `?${query.map((p) => `${p.name}=…`).join("&")}` : ""}"`,
  ];
  const requirement = op.security[0];
  if (requirement?.bearer) lines.push(`-H "Authorization: Bearer $TOKEN"`);
  if (requirement?.clientSecretBasic) lines.push(`-u "$CLIENT_ID:$CLIENT_SECRET"`);
  for (const p of op.parameters) {
    if (p.in === "header" && p.required) {
      lines.push(`-H "${p.name}: ${String(p.schema?.const ?? p.schema?.examples?.[0] ?? p.example ?? "…")}"`);
    }
  }
  const body = firstContent(op.requestBody?.content);
  if (body) {
    const schema = resolve(doc, body.schema);
    const required = schema?.required ?? Object.keys(schema?.properties ?? {}).slice(0, 3);
    const value = (name: string): unknown => {
      const property = resolve(doc, schema?.properties?.[name]);
      return property?.const ?? property?.examples?.[0] ?? property?.enum?.[0] ?? "…";
    };
    if (body.type === "application/json") {
      lines.push(`-H "Content-Type: application/json"`);
      lines.push(`-d '${JSON.stringify(Object.fromEntries(required.map((name) => [name, value(name)])))}'`);
    } else {
      for (const name of required) lines.push(`--data-urlencode "${name}=${String(value(name))}"`);
    }
  }
  return lines.join(" \\\n  ");
}
