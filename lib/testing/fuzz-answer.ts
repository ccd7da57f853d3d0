import { errorStatus } from "@/lib/api/http-error";

const allowedExtraFields = new Set(["contactId", "meta"]);
const spec = new Set(Object.keys(errorStatus));

/**
 * SPEC.md's property of one answer; returns what is wrong, or null. `text` is the raw body.
 * `secrets` (values that must never be echoed) are checked in error bodies.
 */
export function checkAnswer(
  status: number,
  headers: Headers,
  text: string,
  method: string,
  secrets: string[] = [],
): string | null {
  const traceId = headers.get("x-trace-id");
  if (status >= 500) return `a ${status} (a 5xx is a defect): ${text.slice(0, 300)}`;
  if (!traceId || !/^[0-9a-f-]{36}$/.test(traceId)) return `no x-trace-id header (got ${traceId})`;
  if (status < 400) return null;
  if (method === "HEAD") return null; // no body by definition
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `a ${status} whose body is not JSON: ${text.slice(0, 200)}`;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return `a ${status} whose body is not an object`;
  if (!headers.get("content-type")?.startsWith("application/json")) return `a ${status} without a JSON content type`;
  const { error, error_description, statusCode, traceId: bodyTrace, ...extra } = body;
  if (typeof error !== "string" || !spec.has(error) || error === "server_error")
    return `error code ${JSON.stringify(error)} is not one of SPEC.md's 4xx codes`;
  if (typeof error_description !== "string" || error_description.length < 5)
    return `error_description is not a sentence: ${JSON.stringify(error_description)}`;
  if (statusCode !== status) return `statusCode ${statusCode} differs from the HTTP status ${status}`;
  if (bodyTrace !== traceId) return `traceId ${bodyTrace} differs from x-trace-id ${traceId}`;
  const unexpected = Object.keys(extra).filter((k) => !allowedExtraFields.has(k));
  if (unexpected.length) return `unexpected fields in the error body: ${unexpected.join(", ")}`;
  if (status === 429 && !headers.get("retry-after")) return "a 429 without Retry-After";
  if (/\bat .+\(.+:\d+:\d+\)|prisma|SELECT |INSERT |node_modules/i.test(text))
    return `the error body looks like it leaks internals: ${text.slice(0, 300)}`;
  const leaked = secrets.find((s) => s.length >= 12 && text.includes(s));
  if (leaked) return `the error body echoes a secret (…${leaked.slice(-6)})`;
  return null;
}
