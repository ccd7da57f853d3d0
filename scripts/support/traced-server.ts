// The HTTP API as scripts/serve.mjs serves it (the direct router over app/route-table.ts, inside
// the tracing's server span when an OTLP endpoint is set), in a process of its own, without
// Next.js: for lib/telemetry/traces.test.ts, which starts it with and without OTEL_* variables.
// Env: DATABASE_URL (and PGLITE_TEMPLATE), SERVER_SECRET, the OTEL_* variables under test.
// Over IPC it answers {ready: port} once listening, and to
// - "modules": {modules: [...]}, the files of node_modules/@opentelemetry loaded in this process;
// - {webhook: url}: an app with its webhook at url, one INSTALL event, delivered by the dispatcher;
//   then {delivered: outcome};
// - "stop": exports what is buffered and exits.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { startTracing } from "@/lib/telemetry/start";
import { tracing } from "@/lib/telemetry/tracing";

// As instrumentation.ts: tracing first, before anything opens the database.
await startTracing();
const { registerDirectRouter } = await import("@/lib/api/direct-router");
const { apiRoutes } = await import("@/app/route-table");
registerDirectRouter(apiRoutes, "http://127.0.0.1", { trustedProxyHops: 0 });
const router = (globalThis as { __tokenServiceDirectRouter?: (a: IncomingMessage, b: ServerResponse) => boolean })
  .__tokenServiceDirectRouter;

function serve(request: IncomingMessage, response: ServerResponse): void {
  if (router?.(request, response)) return;
  // Next.js's part (screens, the JSON 404) is not here.
  response.writeHead(404, { "content-type": "text/plain" }).end("not served by this harness");
}

// scripts/serve.mjs's request handler, as it is there.
const server = createServer((request, response) => {
  const traced = tracing();
  if (traced === undefined) serve(request, response);
  else traced.serve(request, response, () => serve(request, response));
});
server.listen(0, "127.0.0.1", () => process.send?.({ ready: (server.address() as AddressInfo).port }));

const loaded = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("/node_modules/@opentelemetry/"));

async function deliverOneWebhook(url: string): Promise<string> {
  const { db } = await import("@/lib/db/client");
  const { makeAgency } = await import("@/lib/testing/fixtures");
  const { insertAppRow } = await import("@/lib/testing/webhook-delivery");
  const { enqueueWebhookEvents } = await import("@/lib/webhooks/outbox");
  const { dispatchDueEvents } = await import("@/lib/webhooks/dispatcher");
  const { company } = await makeAgency({ locations: 0 });
  const app = await insertAppRow(company.id, { name: "Traced app", webhookUrl: url });
  await db().$transaction((tx) =>
    enqueueWebhookEvents(tx, [{ appId: app.id, type: "INSTALL", targetUrl: url, payload: { type: "INSTALL" } }]),
  );
  const summary = await dispatchDueEvents({ appIds: [app.id], allowPrivate: true });
  return JSON.stringify(summary);
}

process.on("message", (message: unknown) => {
  if (message === "modules") process.send?.({ modules: loaded() });
  else if (message === "stop") {
    server.close();
    void (tracing()?.shutdown() ?? Promise.resolve()).finally(() => process.exit(0));
  } else if (typeof message === "object" && message !== null && "webhook" in message) {
    deliverOneWebhook(String(message.webhook)).then(
      (delivered) => process.send?.({ delivered }),
      (error: unknown) => process.send?.({ delivered: `error: ${String(error)}` }),
    );
  }
});
