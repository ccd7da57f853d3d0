import { randomBytes } from "node:crypto";
import { disconnectDb } from "@/lib/db/client";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@/lib/testing/otlp-receiver";
import { check, results, say } from "./context";
import { makeInstance } from "./instances";
import { issueCode, makeWorld, openFreshDatabase } from "./world";

/** A form POST's status, JSON body and x-trace-id. */
async function postForm(
  base: string,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, string>;
  return { status: res.status, body, traceId: res.headers.get("x-trace-id") ?? "" };
}

/**
 * SPEC.md › Running it as a platform runs it, Traces, on the production server (`npm start`: Next.js
 * behind scripts/serve.mjs, instrumentation.ts turning tracing on) exporting to a receiver started
 * here over `protocol`: a code exchange and its refresh sent with a traceparent are continued in
 * that trace, each a `POST /oauth/token` server span with database spans as children (on
 * PostgreSQL the refresh's statement runs past Prisma, lib/db/hot-statement.ts); x-trace-id is the
 * trace's id; a refused request's error body carries it too; a screen gets a server span.
 */
export async function tracesChecks(
  label: string,
  databaseUrl: string,
  port: number,
  protocol: "http/protobuf" | "http/json",
): Promise<void> {
  say(`${label}: OpenTelemetry traces over OTLP ${protocol} from one production server`);
  await openFreshDatabase(databaseUrl);
  const world = await makeWorld(1);
  const code = await issueCode(world);
  await disconnectDb(); // PGlite belongs to one process: the server takes it from here.
  const receiver: OtlpReceiver = await startOtlpReceiver();
  const instance = makeInstance(`${label}-traces`, port, databaseUrl, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    PRUNE_INTERVAL_SECONDS: "0",
  });
  try {
    await instance.start();
    const base = instance.url;
    const trace = randomBytes(16).toString("hex");
    const parent = randomBytes(8).toString("hex");
    const traceparent = `00-${trace}-${parent}-01`;
    const client = { client_id: world.client.clientId, client_secret: world.client.clientSecret };
    const exchanged = await postForm(
      base,
      "/oauth/token",
      { grant_type: "authorization_code", code, user_type: "Company", ...client },
      { traceparent },
    );
    const refreshed = await postForm(
      base,
      "/oauth/token",
      { grant_type: "refresh_token", refresh_token: exchanged.body.refresh_token ?? "", ...client },
      { traceparent },
    );
    const refused = await postForm(base, "/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: "nope",
      ...client,
    });
    const screen = await fetch(`${base}/login`);
    const asUuid = (id: string) =>
      `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    check(
      exchanged.status === 200 &&
        refreshed.status === 200 &&
        exchanged.traceId === asUuid(trace) &&
        refreshed.traceId === asUuid(trace),
      `${label}: a token request's x-trace-id is the traceparent's trace id (${exchanged.status} ${exchanged.traceId}, ${refreshed.status} ${refreshed.traceId}; sent ${asUuid(trace)})`,
    );
    const refusedTrace = (refused.body.traceId ?? "").replaceAll("-", "");
    check(
      refused.status === 400 && refused.body.traceId === refused.traceId && /^[0-9a-f]{32}$/.test(refusedTrace),
      `${label}: a refusal's error body carries its x-trace-id (${refused.status} ${refused.body.traceId} ${refused.traceId})`,
    );
    const screenTrace = (screen.headers.get("x-trace-id") ?? "").replaceAll("-", "");

    // Ours: under the traceparent's span in the continued trace, the root in the others (Next.js's
    // own server spans for a screen hang under ours).
    const servers = (spans: ReceivedSpan[], traceId: string) =>
      spans.filter((s) => s.traceId === traceId && s.kind === 2 && (s.parentSpanId !== "") === (traceId === trace));
    const children = (spans: ReceivedSpan[], span: ReceivedSpan) => spans.filter((s) => s.parentSpanId === span.spanId);
    const complete = (spans: ReceivedSpan[]) =>
      servers(spans, trace).length >= 2 &&
      servers(spans, trace).every((s) => children(spans, s).length > 0) &&
      servers(spans, refusedTrace).length === 1 &&
      spans.some((s) => s.traceId === screenTrace && s.kind === 2);
    await receiver.waitFor(complete, 20_000).catch(() => {});
    const spans = receiver.spans;
    const token = servers(spans, trace);
    const names = token.map((s) => s.name);
    const dbChildren = token.flatMap((s) => children(spans, s)).filter((s) => s.attributes["db.system.name"]);
    results[`${label}.traces`] = {
      protocol,
      spans: spans.length,
      tokenSpans: names,
      dbChildren: dbChildren.map((s) => s.name),
      contentTypes: [...new Set(receiver.contentTypes)],
    };
    check(
      token.length === 2 &&
        names.every((name) => name === "POST /oauth/token") &&
        token.every((s) => s.parentSpanId === parent && s.serviceName === "token-service"),
      `${label}: the exchange and the refresh are "POST /oauth/token" server spans, children of the traceparent's span (${names.join(", ") || "none received"})`,
    );
    check(
      token.every((s) => children(spans, s).some((c) => c.attributes["db.system.name"] === "postgresql")),
      `${label}: each token request's database calls are its child spans (${dbChildren.map((s) => s.name).join(", ") || "none"})`,
    );
    check(
      servers(spans, refusedTrace)[0]?.name === "POST /oauth/token" &&
        spans.some((s) => s.traceId === screenTrace && s.kind === 2),
      `${label}: the refusal's trace id and the screen's x-trace-id name their server spans`,
    );
    const expected = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    check(
      receiver.contentTypes.length > 0 && receiver.contentTypes.every((type) => type.startsWith(expected)),
      `${label}: spans arrived as ${expected} (${[...new Set(receiver.contentTypes)].join(", ")})`,
    );
  } finally {
    await instance.stop();
    await receiver.close();
  }
}
