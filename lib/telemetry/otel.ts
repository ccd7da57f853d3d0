import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import type { TracingConfig } from "./config";
import { type OpenSpan, type SpanAttributes, type Tracing, traceIdAsUuid } from "./tracing";

/**
 * OpenTelemetry's Node.js SDK, loaded only by ./start.ts when an OTLP endpoint is set. The SDK
 * reads the standard OTEL_* variables itself (endpoint, protocol, headers, timeouts, the batch
 * processor's delays, the sampler, OTEL_PROPAGATORS: W3C trace context by default); it registers
 * the AsyncLocalStorage context manager, so a span made current here stays current through every
 * promise the request starts. Traces only: no metrics (Prometheus has them, lib/metrics/) and no
 * logs (lib/log.ts writes JSON lines carrying the trace id). No auto-instrumentation either: the
 * spans are the project's own (a server span per request, database and webhook spans), made
 * where the route pattern and the statement are known.
 */

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

/** Methods a span is named by; any other is `HTTP` (OpenTelemetry's HTTP conventions). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);

export function startOpenTelemetry(config: TracingConfig): Tracing {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer("token-service");
  // The headers the configured propagators read (`traceparent`, `tracestate`, `baggage` by default):
  // a request with none of them starts a trace without asking the propagators.
  const propagationFields = propagation.fields();

  const failed = (span: Span, error: unknown) => {
    // The error's name only: a message may carry SQL or a value (SPEC.md: none in any log line).
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute("error.type", error instanceof Error ? error.name : "error");
  };

  const finish = <T>(span: Span, answer: Promise<T>, outcome?: (answer: T) => SpanAttributes): Promise<T> =>
    answer.then(
      (value) => {
        if (outcome) {
          const attributes = outcome(value);
          span.setAttributes(attributes);
          if (attributes["error.type"] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    );

  return {
    serve(request: IncomingMessage, response: ServerResponse, next: () => void): void {
      const headers = request.headers;
      const parent = propagationFields.some((field) => headers[field] !== undefined)
        ? propagation.extract(ROOT_CONTEXT, headers, headerGetter)
        : ROOT_CONTEXT;
      const method = request.method ?? "GET";
      const url = request.url ?? "/";
      const query = url.indexOf("?");
      const span = tracer.startSpan(
        KNOWN_METHODS.has(method) ? method : "HTTP",
        {
          kind: SpanKind.SERVER,
          attributes: {
            "http.request.method": method,
            // The path only: a query may carry a code or a state.
            "url.path": query === -1 ? url : url.slice(0, query),
          },
        },
        parent,
      );
      const end = () => {
        const status = response.statusCode;
        span.setAttribute("http.response.status_code", status);
        if (status >= 500 || !response.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      // Emitted once the answer is written, or when the connection closes before it is.
      response.once("close", end);
      context.with(trace.setSpan(parent, span), next);
    },

    route(method: string, pattern: string): void {
      const span = trace.getActiveSpan();
      if (!span) return;
      span.updateName(`${KNOWN_METHODS.has(method) ? method : "HTTP"} ${pattern}`);
      span.setAttribute("http.route", pattern);
    },

    traceId(): string {
      const span = trace.getActiveSpan();
      return span ? traceIdAsUuid(span.spanContext().traceId) : crypto.randomUUID();
    },

    logFields() {
      const span = trace.getActiveSpan();
      if (!span) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { traceId: traceIdAsUuid(traceId), spanId };
    },

    child<T>(
      name: string,
      attributes: SpanAttributes,
      call: () => Promise<T>,
      outcome?: (answer: T) => SpanAttributes,
    ): Promise<T> {
      const active: Context = context.active();
      if (trace.getSpan(active) === undefined) return call();
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active);
      let answer: Promise<T>;
      try {
        answer = call();
      } catch (error) {
        failed(span, error);
        span.end();
        throw error;
      }
      return finish(span, answer, outcome);
    },

    root<T>(name: string, attributes: SpanAttributes, call: (span: OpenSpan) => Promise<T>): Promise<T> {
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes, root: true });
      const open: OpenSpan = {
        set: (more) => span.setAttributes(more),
        fail: (errorType) => {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.setAttribute("error.type", errorType);
        },
      };
      return context.with(trace.setSpan(ROOT_CONTEXT, span), () => finish(span, call(open)));
    },

    shutdown: () => sdk.shutdown(),
  };
}
