import { EnvError } from "@/lib/env";

/**
 * Whether this process exports traces, from the standard OpenTelemetry variables: on when an OTLP
 * endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT), unless
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. The protocol is OTLP over HTTP, protobuf by
 * default (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, then OTEL_EXPORTER_OTLP_PROTOCOL): `http/protobuf`
 * or `http/json`. A bad value stops the start with a sentence naming the variable, as every other
 * variable does; the SDK itself would only warn and export somewhere else or nowhere.
 */

export const PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type OtlpProtocol = (typeof PROTOCOLS)[number];

export interface TracingConfig {
  /** Where spans are posted: the traces endpoint as given, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME, else `token-service`. */
  serviceName: string;
}

type Source = Record<string, string | undefined>;

const set = (source: Source, name: string) => {
  const value = source[name]?.trim();
  return value ? value : undefined;
};

/** The configuration, or undefined when tracing is off. Reads nothing but `source`. */
export function tracingConfig(source: Source = process.env): TracingConfig | undefined {
  const tracesEndpoint = set(source, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const endpoint = set(source, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (tracesEndpoint === undefined && endpoint === undefined) return undefined;
  if (set(source, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const exporters = set(source, "OTEL_TRACES_EXPORTER");
  if (exporters !== undefined) {
    const names = exporters.split(",").map((name) => name.trim());
    if (names.includes("none")) return undefined;
    if (names.some((name) => name !== "otlp")) {
      throw new EnvError("The environment variable OTEL_TRACES_EXPORTER must be otlp or none.");
    }
  }
  const url = tracesEndpoint
    ? checkedUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tracesEndpoint)
    : // The signal's path is appended to the general endpoint (OTLP exporter specification).
      `${checkedUrl("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint as string).replace(/\/+$/, "")}/v1/traces`;
  const protocolName = source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = set(source, protocolName) ?? "http/protobuf";
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new EnvError(
      `The environment variable ${protocolName} must be http/protobuf or http/json (OTLP over HTTP; grpc is not supported).`,
    );
  }
  return { url, protocol: protocol as OtlpProtocol, serviceName: set(source, "OTEL_SERVICE_NAME") ?? "token-service" };
}

function checkedUrl(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new EnvError(`The environment variable ${name} must be an http:// or https:// URL.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new EnvError(`The environment variable ${name} must be an http:// or https:// URL.`);
  }
  return value;
}
