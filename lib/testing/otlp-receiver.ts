import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/**
 * An OTLP/HTTP trace receiver for tests: a plain node:http server that takes POST /v1/traces in
 * either encoding an exporter sends (`application/x-protobuf` or `application/json`), answers 200
 * with an empty ExportTraceServiceResponse, and keeps every span, decoded into one shape.
 */

export interface ReceivedSpan {
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  /** 16 hex digits, or "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The resource's `service.name`. */
  serviceName: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the requests received, in order. */
  contentTypes: string[];
  /** Waits until `done(spans)` holds (polling), or fails after `timeoutMs`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The part of opentelemetry-proto's trace.proto (and common.proto, resource.proto) the tests read,
 * with its field numbers; protobufjs skips the fields left out (events, links, dropped counts).
 */
const TRACE_PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    bytes bytes_value = 7;
  }
}
`;

const requestType = protobuf.parse(TRACE_PROTO, { keepCase: false }).root.lookupType("ExportTraceServiceRequest");

/** What both decodings give, before the ids are made hex and the attributes flat. */
interface Wire {
  resourceSpans?: {
    resource?: { attributes?: WireKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId?: string;
        spanId?: string;
        parentSpanId?: string;
        name?: string;
        kind?: number;
        attributes?: WireKeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

interface WireKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}

/** OTLP/JSON writes ids as hex; protobuf's bytes come out of toObject as base64. */
function hexId(value: string | undefined, hexLength: number): string {
  if (!value) return "";
  if (value.length === hexLength && /^[0-9a-f]+$/i.test(value)) return value.toLowerCase();
  return Buffer.from(value, "base64").toString("hex");
}

function flat(attributes: WireKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

export function decodeSpans(body: Buffer, contentType: string): ReceivedSpan[] {
  const wire: Wire = contentType.startsWith("application/json")
    ? (JSON.parse(body.toString("utf8")) as Wire)
    : (requestType.toObject(requestType.decode(body), { bytes: String, longs: String, defaults: false }) as Wire);
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of wire.resourceSpans ?? []) {
    const serviceName = String(flat(resourceSpans.resource?.attributes)["service.name"] ?? "");
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: hexId(span.traceId, 32),
          spanId: hexId(span.spanId, 16),
          parentSpanId: hexId(span.parentSpanId, 16),
          name: span.name ?? "",
          kind: span.kind ?? 0,
          attributes: flat(span.attributes),
          statusCode: span.status?.code ?? 0,
          serviceName,
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const contentType = String(request.headers["content-type"] ?? "");
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      contentTypes.push(contentType);
      try {
        spans.push(...decodeSpans(Buffer.concat(chunks), contentType));
      } catch {
        response.writeHead(400).end();
        return;
      }
      const json = contentType.startsWith("application/json");
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      response.end(json ? "{}" : Buffer.alloc(0));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(done, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > deadline) {
          const names = spans.map((s) => s.name).join(", ");
          throw new Error(`The spans awaited did not arrive within ${timeoutMs} ms; received: ${names || "none"}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
