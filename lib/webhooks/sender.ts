import http from "node:http";
import https from "node:https";
import { guardedLookup, parseWebhookTarget } from "./ssrf";

/**
 * One HTTP attempt of a webhook: a POST with a hard time limit, no redirects, and only the first
 * 1 KiB of the answer kept (for the delivery log).
 */

export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's response body the delivery log keeps. */
export const RESPONSE_BODY_LIMIT_BYTES = 1024;
const USER_AGENT = "token-service-webhooks/1.0";

export interface SendWebhookInput {
  url: string;
  body: string;
  /** The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). */
  headers: Record<string, string>;
  timeoutMs?: number;
  /** Defaults to WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
}

export interface SendWebhookResult {
  /** The receiver's status code; absent when there was no HTTP answer. */
  statusCode?: number;
  /** Why there was no answer (connection refused, timeout, refused target, …). No secrets. */
  error?: string;
  durationMs: number;
  /** From a Retry-After header (429/503), in milliseconds. */
  retryAfterMs?: number;
  /** The first 1 KiB of the response body as text (see responseBodyExcerpt); absent without an answer. */
  responseBody?: string;
}

export function sendWebhook(input: SendWebhookInput): Promise<SendWebhookResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise<SendWebhookResult>((resolve) => {
    let url: URL;
    try {
      url = parseWebhookTarget(input.url, { allowPrivate: input.allowPrivate });
    } catch (error) {
      resolve({ error: describeSendError(error), durationMs: elapsed() });
      return;
    }
    let settled = false;
    const finish = (result: Omit<SendWebhookResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const body = Buffer.from(input.body, "utf8");
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      // A fresh connection per attempt: the guarded lookup runs for each one.
      agent: false,
      lookup: guardedLookup({ allowPrivate: input.allowPrivate }),
      headers: {
        ...input.headers,
        "content-type": "application/json",
        "content-length": String(body.length),
        "user-agent": USER_AGENT,
      },
    });
    const timer = setTimeout(() => {
      const seconds = timeoutMs / 1000;
      finish({ error: `timed out after ${seconds} s` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error) => {
      finish({ error: describeSendError(error) });
    });
    request.on("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      const retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
      // Keep at most 1 KiB and one byte (the byte tells a cut body from a whole one), then hang up:
      // a receiver's answer may be large, endless or binary.
      const chunks: Buffer[] = [];
      let kept = 0;
      const answered = () =>
        finish({ statusCode, retryAfterMs, responseBody: responseBodyExcerpt(Buffer.concat(chunks, kept)) });
      response.on("data", (chunk: Buffer) => {
        if (settled) return;
        const wanted = RESPONSE_BODY_LIMIT_BYTES + 1 - kept;
        chunks.push(chunk.length > wanted ? chunk.subarray(0, wanted) : chunk);
        kept += Math.min(chunk.length, wanted);
        if (kept > RESPONSE_BODY_LIMIT_BYTES) {
          answered();
          request.destroy();
        }
      });
      response.on("end", answered);
      response.on("error", answered);
      // A receiver that sends its status and then trickles a body forever still counts as answered.
      setTimeout(() => {
        answered();
        request.destroy();
      }, 1000).unref();
    });
    request.end(body);
  });
}

/**
 * The delivery log's text of a response body: its first 1 KiB decoded as UTF-8, bad bytes (a
 * binary answer) replaced with U+FFFD. A character cut by the limit is dropped rather than shown
 * as a replacement. NUL becomes U+FFFD too: PostgreSQL text cannot hold it.
 */
export function responseBodyExcerpt(bytes: Uint8Array): string {
  const cut = bytes.length > RESPONSE_BODY_LIMIT_BYTES;
  const text = new TextDecoder("utf-8").decode(bytes.subarray(0, RESPONSE_BODY_LIMIT_BYTES), { stream: cut });
  return text.replaceAll("\u0000", "\uFFFD");
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A short, secret-free reason for the delivery log. */
export function describeSendError(error: unknown): string {
  if (!(error instanceof Error)) return "network error";
  const code = (error as NodeJS.ErrnoException).code;
  if (error.name === "WebhookTargetRefused") return `refused: ${error.message}`;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host name not found";
    case "ETIMEDOUT":
      return "connection timed out";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "CERT_HAS_EXPIRED":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `TLS certificate not accepted (${code})`;
    default:
      return code ? `network error (${code})` : `network error: ${error.message.slice(0, 200)}`;
  }
}
