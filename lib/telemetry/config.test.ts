import { describe, expect, it } from "vitest";
import { EnvError } from "@/lib/env";
import { tracingConfig } from "./config";
import { statementSpanName } from "./db-spans";
import { newTraceId, traceIdAsUuid } from "./tracing";

describe("tracingConfig", () => {
  it("is off without an OTLP endpoint, and when the SDK or the traces exporter is turned off", () => {
    expect(tracingConfig({})).toBeUndefined();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBeUndefined();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("posts to <endpoint>/v1/traces, or to the traces endpoint as given, over protobuf by default", () => {
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "token-service",
    });
    expect(
      tracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/otlp",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "tokens-eu",
      }),
    ).toEqual({ url: "https://traces.example/otlp", protocol: "http/json", serviceName: "tokens-eu" });
  });

  it("stops the start with a sentence naming the variable for a value it cannot use", () => {
    const bad = (source: Record<string, string>) => () => tracingConfig(source);
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(EnvError);
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(bad({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://c/v1/traces" })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/,
    );
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/,
    );
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(
      /OTEL_TRACES_EXPORTER/,
    );
  });
});

describe("database span names", () => {
  it("are the operation and its table, past the prepared mark", () => {
    expect(statementSpanName('SELECT "public"."AccessToken"."id" FROM "public"."AccessToken" WHERE 1=1')).toBe(
      "SELECT AccessToken",
    );
    expect(statementSpanName('/* prepared */ \n  SELECT a.id FROM "App" a JOIN "X" x ON true')).toBe("SELECT App");
    expect(statementSpanName('INSERT INTO "public"."WebhookDelivery" ("id") VALUES ($1)')).toBe(
      "INSERT WebhookDelivery",
    );
    expect(statementSpanName('UPDATE "public"."WebhookEvent" SET "status" = $1')).toBe("UPDATE WebhookEvent");
    expect(statementSpanName('DELETE FROM "Grant" WHERE id = $1')).toBe("DELETE Grant");
    expect(statementSpanName("WITH consumed AS (UPDATE x SET y = 1 RETURNING *) SELECT * FROM consumed")).toBe("WITH");
    expect(statementSpanName("")).toBe("SQL");
  });
});

describe("trace ids", () => {
  it("are a trace's 32 hex digits in the 8-4-4-4-12 shape, and a random UUID while tracing is off", () => {
    expect(traceIdAsUuid("4bf92f3577b34da6a3ce929d0e0e4736")).toBe("4bf92f35-77b3-4da6-a3ce-929d0e0e4736");
    expect(newTraceId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
