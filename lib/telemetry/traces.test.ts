import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@/lib/testing/otlp-receiver";

/**
 * SPEC.md › Running it as a platform runs it, Traces: the HTTP API served as scripts/serve.mjs serves
 * it (scripts/support/traced-server.ts: the direct router over the real route table, in a process
 * of its own) exports its spans over OTLP/HTTP to a receiver started here, in both encodings.
 * Checked: the server span's name (method and route pattern), the database spans as its children,
 * a webhook delivery's span and its children, a received traceparent continued, and x-trace-id,
 * the error body's traceId, a log line's traceId and the trace's id being one id. Without an endpoint, nothing of
 * OpenTelemetry is loaded.
 */

interface Harness {
  port: number;
  child: ChildProcess;
  ask<T>(message: unknown, key: string): Promise<T>;
  stop(): Promise<void>;
}

let running: Harness | undefined;
let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await receiver?.close();
  receiver = undefined;
});

/** The harness's log lines (JSON, from stdout), as they arrive. */
let logLines: Record<string, unknown>[] = [];

async function startHarness(env: Record<string, string | undefined>): Promise<Harness> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/support/traced-server.ts"], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  logLines = [];
  let partial = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const ask = <T>(message: unknown, key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (answer: unknown) => {
        if (typeof answer === "object" && answer !== null && key in answer) {
          child.off("message", onMessage);
          resolve((answer as Record<string, T>)[key] as T);
        }
      };
      child.on("message", onMessage);
      if (message !== undefined) child.send(message as string);
      void exited.then(() => reject(new Error("the traced server exited")));
    });
  const port = await ask<number>(undefined, "ready");
  return {
    port,
    child,
    ask,
    async stop() {
      if (child.exitCode === null) child.send("stop");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const asUuid = (id: string) =>
  `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
const asHex = (uuid: string) => uuid.replaceAll("-", "");

const OFF = {
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_PROTOCOL: undefined,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: undefined,
  OTEL_SERVICE_NAME: undefined,
};

describe.each(["http/protobuf", "http/json"] as const)("traces exported over OTLP %s", (protocol) => {
  it("names the server span by route, nests the database spans in it, and gives its trace's id to x-trace-id and traceId", async () => {
    receiver = await startOtlpReceiver();
    running = await startHarness({
      ...OFF,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    const base = `http://127.0.0.1:${running.port}`;

    // A refused token request carrying a traceparent: the trace is continued.
    const incomingTrace = hex(32);
    const incomingParent = hex(16);
    const refused = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        traceparent: `00-${incomingTrace}-${incomingParent}-01`,
      },
      body: "grant_type=refresh_token&client_id=nobody-123&client_secret=wrong&refresh_token=nothing",
    });
    const body = (await refused.json()) as { error: string; traceId: string };
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(body.traceId).toBe(asUuid(incomingTrace));
    expect(refused.headers.get("x-trace-id")).toBe(asUuid(incomingTrace));

    // Without a traceparent: a new trace, whose id the answer carries.
    const ready = await fetch(`${base}/api/ready`);
    expect(ready.status).toBe(200);
    const readyTrace = asHex(ready.headers.get("x-trace-id") ?? "");
    expect(readyTrace).toMatch(/^[0-9a-f]{32}$/);

    const server = (trace: string) => (spans: ReceivedSpan[]) => spans.find((s) => s.traceId === trace && s.kind === 2);
    const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan | undefined) =>
      spans.filter((s) => parent !== undefined && s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
    await receiver.waitFor((spans) => {
      const token = server(incomingTrace)(spans);
      const probe = server(readyTrace)(spans);
      return childrenOf(spans, token).length > 0 && childrenOf(spans, probe).length > 0;
    });
    const spans = receiver.spans;

    const token = server(incomingTrace)(spans);
    expect(token).toMatchObject({
      name: "POST /oauth/token",
      parentSpanId: incomingParent,
      serviceName: "token-service",
      attributes: expect.objectContaining({
        "http.route": "/oauth/token",
        "http.request.method": "POST",
        "http.response.status_code": refused.status,
      }),
    });
    const tokenDb = childrenOf(spans, token);
    expect(tokenDb.every((s) => s.kind === 3 && s.attributes["db.system.name"] === "postgresql")).toBe(true);
    expect(tokenDb.some((s) => /^SELECT\b/.test(s.name))).toBe(true);

    const probe = server(readyTrace)(spans);
    expect(probe).toMatchObject({ name: "GET /api/ready", parentSpanId: "" });
    expect(childrenOf(spans, probe).length).toBeGreaterThan(0);

    const expected = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    expect(receiver.contentTypes.every((type) => type.startsWith(expected))).toBe(true);
  });

  it("traces a webhook delivery: its HTTP request and its database calls are children of its span", async () => {
    receiver = await startOtlpReceiver();
    running = await startHarness({
      ...OFF,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: "tokens-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      LOG_LEVEL: "info",
    });
    const hooks = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(200).end("ok"));
    });
    await new Promise<void>((done) => hooks.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
      const delivered = await running.ask<string>({ webhook: url }, "delivered");
      expect(delivered).toContain('"delivered":1');
      const delivery = (spans: ReceivedSpan[]) => spans.find((s) => s.name === "webhook INSTALL");
      await receiver.waitFor((spans) => {
        const span = delivery(spans);
        return span !== undefined && spans.filter((s) => s.parentSpanId === span.spanId).length >= 2;
      });
      const span = delivery(receiver.spans);
      expect(span).toMatchObject({
        parentSpanId: "",
        serviceName: "tokens-under-test",
        attributes: expect.objectContaining({ "webhook.outcome": "delivered", "webhook.attempt": 1 }),
      });
      const children = receiver.spans.filter((s) => s.parentSpanId === span?.spanId);
      expect(children.find((s) => s.name === "POST")?.attributes["http.response.status_code"]).toBe(200);
      expect(children.some((s) => s.attributes["db.system.name"] === "postgresql")).toBe(true);
      // The claim, and the fixtures written before it, ran outside any span: no trace of their own.
      expect(receiver.spans.filter((s) => s.attributes["db.system.name"] && s.parentSpanId === "")).toEqual([]);
      // The attempt's log line carries the delivery's trace id (lib/log.ts).
      const logged = logLines.find((line) => line.msg === "webhook attempt");
      expect(logged).toMatchObject({ traceId: asUuid(span?.traceId ?? ""), spanId: span?.spanId });
    } finally {
      hooks.closeAllConnections();
      await new Promise((done) => hooks.close(done));
    }
  });
});

describe("without an OTLP endpoint", () => {
  it("loads nothing of OpenTelemetry's SDK and answers with a random trace id, as before", async () => {
    running = await startHarness(OFF);
    const base = `http://127.0.0.1:${running.port}`;
    const refused = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", traceparent: `00-${hex(32)}-${hex(16)}-01` },
      body: "grant_type=refresh_token&client_id=nobody-123&client_secret=wrong&refresh_token=nothing",
    });
    const body = (await refused.json()) as { traceId: string };
    expect(body.traceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(refused.headers.get("x-trace-id")).toBe(body.traceId);
    expect((await fetch(`${base}/api/ready`)).status).toBe(200);
    // Prisma's runtime and prom-client require the API package themselves (a no-op facade until an
    // SDK registers a provider); the SDK, its exporters and its context manager are never loaded.
    const loaded = await running.ask<string[]>("modules", "modules");
    expect(loaded.filter((file) => !file.includes("/node_modules/@opentelemetry/api/"))).toEqual([]);
  });
});
