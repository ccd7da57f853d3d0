import type { z } from "zod";
import { DirectRequest } from "./direct-request";
import { HttpError } from "./http-error";

/**
 * Reading request input. Anything that is not what the endpoint takes (wrong content type,
 * broken encoding, huge bodies, wrong types, unknown enum values) becomes a 400 HttpError with a
 * sentence naming the field, never a 500.
 */

export const MAX_FORM_BYTES = 64 * 1024;
export const MAX_JSON_BYTES = 1024 * 1024;
/** The largest body a screen's form or server action takes (Next.js's own server-action limit). */
export const MAX_SCREEN_BODY_BYTES = 1024 * 1024;

function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

async function readBody(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  // The direct router's request (./direct-request.ts) has its body in a buffer already.
  if ((request as unknown) instanceof DirectRequest)
    return decodeBody((request as unknown as DirectRequest).bodyBytes(), maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client closed the connection mid-body: a refusal (logged as such), not a server error.
      throw new HttpError("invalid_request", "The request body ended early: the connection closed while it was sent.");
    });
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return decodeBody(Buffer.concat(chunks), maxBytes);
}

function decodeBody(bytes: Buffer, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError("invalid_request", "The request body is not valid UTF-8.");
  }
}

/**
 * Whether a NUL character hides in a string, array or object (keys included). PostgreSQL text
 * cannot hold NUL, so such input must be refused here, as a 400, before it reaches a query.
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000")) return true;
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === "object") {
      // Keys one by one (not Object.entries' pairs): every API request's path params pass here.
      const record = v as Record<string, unknown>;
      for (const k of Object.keys(record)) {
        if (k.includes("\u0000")) return true;
        stack.push(record[k]);
      }
    }
  }
  return false;
}

const nulError = (where: string) =>
  new HttpError("invalid_request", `The ${where} contains a NUL character (%00), which nothing here accepts.`);

function tooLarge(maxBytes: number): HttpError {
  // 400, not 413: SPEC.md gives every code one status, and invalid_request's is 400.
  return new HttpError("invalid_request", `The request body is larger than ${Math.round(maxBytes / 1024)} KB.`);
}

/** The first zod issue as a sentence that names the field. */
export function describeIssue(error: z.ZodError, source: string, input?: unknown): string {
  const issue = error.issues[0];
  if (!issue) return `The ${source} is invalid.`;
  const field = issue.path.length ? issue.path.join(".") : undefined;
  if (issue.code === "unrecognized_keys") {
    return `The ${source} has fields this endpoint does not take: ${issue.keys.join(", ")}.`;
  }
  if (field && issue.code === "invalid_type" && valueAt(input, issue.path) === undefined)
    return `${field} is required.`;
  return field ? `${field}: ${issue.message}` : `The ${source} is invalid: ${issue.message}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  source: string,
  code: "invalid_request" | "invalid_scope" = "invalid_request",
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new HttpError(code, describeIssue(result.error, source, input));
  return result.data;
}

/**
 * An application/x-www-form-urlencoded body as a plain object. A parameter given twice is refused
 * (RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once").
 */
export async function readForm(request: Request): Promise<Record<string, string>> {
  if (mediaType(request) !== "application/x-www-form-urlencoded") {
    throw new HttpError(
      "invalid_request",
      "Send the body as application/x-www-form-urlencoded (Content-Type: application/x-www-form-urlencoded).",
    );
  }
  const text = await readBody(request, MAX_FORM_BYTES);
  if (/%(?![0-9a-fA-F]{2})/.test(text)) {
    throw new HttpError("invalid_request", "The form body has a broken percent-encoding.");
  }
  const params = new URLSearchParams(text);
  const out: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in out) throw new HttpError("invalid_request", `The parameter ${key} was sent more than once.`);
    out[key] = value;
  }
  if (containsNul(out)) throw nulError("form body");
  return out;
}

export async function parseForm<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parseWith(schema, await readForm(request), "form body");
}

/** A JSON body as its raw text (for a signature over the exact bytes); parse it with `parseJsonText`. */
export async function readJsonText(request: Request): Promise<string> {
  if (mediaType(request) !== "application/json") {
    throw new HttpError("invalid_request", "Send the body as JSON (Content-Type: application/json).");
  }
  return readBody(request, MAX_JSON_BYTES);
}

export async function parseJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parseJsonText(await readJsonText(request), schema);
}

/** The JSON text of a body read by `readJsonText`, parsed with `schema` (400 when it does not fit). */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError("invalid_request", "The request body is not valid JSON.");
  }
  if (containsNul(value)) throw nulError("JSON body");
  return parseWith(schema, value, "JSON body");
}

export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const url = new URL(request.url);
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (key in out) throw new HttpError("invalid_request", `The query parameter ${key} was sent more than once.`);
    out[key] = value;
  }
  if (containsNul(out)) throw nulError("query string");
  return parseWith(schema, out, "query string");
}
