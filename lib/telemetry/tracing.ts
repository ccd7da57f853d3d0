import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The seam between the hot paths and OpenTelemetry. Nothing here imports `@opentelemetry/*`: with no
 * OTLP endpoint set (./config.ts) the SDK is never loaded, `tracing()` is undefined, and each place
 * that could trace pays one check of it. With one, instrumentation.ts calls `startTracing`
 * (./start.ts), which loads ./otel.ts (the SDK) and puts its `Tracing` here. It is kept on
 * globalThis because Next.js bundles a module once per chunk that imports it (the route handlers,
 * the direct router and instrumentation.ts are different chunks of one process), and
 * scripts/serve.mjs, plain JavaScript outside every chunk, reads it there too.
 */

export type SpanAttributes = Record<string, string | number | boolean>;

/** The span of `root`'s call, which adds what it learns on the way (the span ends with the call). */
export interface OpenSpan {
  set(attributes: SpanAttributes): void;
  /** Marks the span as failed, with `errorType` as its `error.type` (a code, never a message). */
  fail(errorType: string): void;
}

export interface Tracing {
  /**
   * The server span of one HTTP request (continuing its W3C `traceparent`), current while `next`
   * runs and everything it starts; ended when the answer is written or the connection closes.
   * Named by the method until `route` names its pattern.
   */
  serve(request: IncomingMessage, response: ServerResponse, next: () => void): void;
  /** Names the current server span `<method> <pattern>` (`POST /oauth/token`), the route's pattern. */
  route(method: string, pattern: string): void;
  /** The current trace's id in the 8-4-4-4-12 shape of a UUID; a random UUID outside any span. */
  traceId(): string;
  /** The current trace and span ids for a log line; undefined outside any span. */
  logFields(): { traceId: string; spanId: string } | undefined;
  /**
   * `call` as a client span, child of the current span; without a current span, `call` alone.
   * `outcome` adds attributes from its answer (an `error.type` among them marks the span failed).
   */
  child<T>(
    name: string,
    attributes: SpanAttributes,
    call: () => Promise<T>,
    outcome?: (answer: T) => SpanAttributes,
  ): Promise<T>;
  /** `call` in a span that begins a trace of its own (a webhook delivery), current while it runs. */
  root<T>(name: string, attributes: SpanAttributes, call: (span: OpenSpan) => Promise<T>): Promise<T>;
  /** Exports what is still buffered and stops (the server's last step before it exits). */
  shutdown(): Promise<void>;
}

const holder = globalThis as typeof globalThis & { __tokenServiceTracing?: Tracing };

/** The process's tracing, or undefined while it is off (no OTLP endpoint). */
export function tracing(): Tracing | undefined {
  return holder.__tokenServiceTracing;
}

export function setTracing(value: Tracing | undefined): void {
  holder.__tokenServiceTracing = value;
}

/**
 * A request's trace id: the current trace's when tracing is on (so `x-trace-id`, the error body's
 * `traceId`, the logs and the trace are one search), otherwise a random UUID, as before.
 */
export function newTraceId(): string {
  const on = holder.__tokenServiceTracing;
  return on === undefined ? randomUUID() : on.traceId();
}

/** A 32-hex-digit W3C trace id in the 8-4-4-4-12 shape SPEC.md gives `traceId`. */
export function traceIdAsUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
