/**
 * Next.js instrumentation: runs once when a server instance starts, before it listens. It opens
 * the database (lib/db/readiness.ts's openBeforeServing), then starts
 * - the pruner (lib/maintenance/prune.ts), which deletes expired and consumed rows in small batches
 *   every PRUNE_INTERVAL_SECONDS (0: off on this instance); one instance prunes at a time;
 * - the webhook dispatcher (lib/webhooks/dispatcher.ts), which delivers the outbox of every instance
 *   sharing the database; several instances may run it at once (claims use FOR UPDATE SKIP LOCKED);
 * - the direct routes (lib/api/direct-router.ts): the HTTP API's route modules (app/route-table.ts),
 *   handed to scripts/serve.mjs, which answers them ahead of Next.js's router;
 * - the reminder check (lib/reminders/start.ts): at start and every REMINDER_CHECK_SECONDS (0: off on
 *   this instance), each milestone notified once across instances;
 * - the notice of a disabled webhook endpoint (lib/webhooks/endpoint-health.ts's seam, set to
 *   lib/reminders/events.ts);
 * - with METRICS_PORT set, the Prometheus metrics (lib/metrics/) and their port of their own;
 * - with an OTLP endpoint set (OTEL_EXPORTER_OTLP_ENDPOINT), OpenTelemetry traces (lib/telemetry/);
 * - what runs when scripts/serve.mjs stops, once the requests in flight are answered: the last flush
 *   of API usage counts (lib/usage/counter.ts), the dispatcher's attempts in flight, the database.
 *
 * WEBHOOK_DISPATCHER=off keeps this instance from delivering webhooks (events are still written
 * to the outbox and delivered by any instance that has it on).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return; // not in the edge runtime
  if (process.env.NEXT_PHASE === "phase-production-build") return; // not while `next build` runs
  // No stack traces in any log line, Next.js's own included (SPEC.md).
  const { guardConsole } = await import("@/lib/log");
  guardConsole();
  const { env } = await import("@/lib/env");
  // With an OTLP endpoint set, OpenTelemetry's SDK (lib/telemetry/), before anything opens the
  // database or serves a request; without one, nothing of it is loaded.
  const { startTracing } = await import("@/lib/telemetry/start");
  const traced = await startTracing();
  if (traced) {
    const { log } = await import("@/lib/log");
    const { tracingConfig } = await import("@/lib/telemetry/config");
    const config = tracingConfig();
    log.info("traces exported over OTLP", { url: config?.url, protocol: config?.protocol });
  }
  // The database opened before the server listens (after the tracing, which wraps its client):
  // the first probe and the first request find it open. Bounded; a database down is only logged.
  const { openBeforeServing } = await import("@/lib/db/readiness");
  await openBeforeServing();
  // Before the routes: the metrics count from the first request on.
  const metricsServer = env().METRICS_PORT === undefined ? undefined : await startMetrics();
  const { registerDirectRouter } = await import("@/lib/api/direct-router");
  const { apiRoutes } = await import("@/app/route-table");
  registerDirectRouter(apiRoutes, process.env.__NEXT_PRIVATE_ORIGIN ?? "http://localhost", {
    trustedProxyHops: env().TRUSTED_PROXY_HOPS,
  });
  // What is left to do once the requests in flight are answered (scripts/serve.mjs bounds the time):
  // counts gathered since the last second's flush are written, the dispatcher's attempts in flight
  // are recorded, and the database is closed (PGlite writes its last pages).
  const { usageCounter } = await import("@/lib/usage/counter");
  (globalThis as { __tokenServiceBeforeExit?: () => Promise<unknown> }).__tokenServiceBeforeExit = async () => {
    const { stopDispatcher } = await import("@/lib/webhooks/dispatcher");
    await Promise.allSettled([usageCounter().stop(), stopDispatcher(), metricsServer?.close()]);
    const { disconnectDb } = await import("@/lib/db/client");
    await disconnectDb();
    // Last: the spans of everything above are exported before the process exits.
    await traced?.shutdown();
  };
  // A disabled webhook endpoint is notified to the app's developers (webhooks may not import reminders).
  const { setEndpointDisabledNotifier } = await import("@/lib/webhooks/endpoint-health");
  const { notifyEventSafely } = await import("@/lib/reminders/events");
  setEndpointDisabledNotifier(({ appId, disabledAt }) =>
    notifyEventSafely({ kind: "webhook_endpoint_disabled", appId, at: disabledAt }),
  );
  if (env().REMINDER_CHECK_SECONDS > 0) {
    const { startReminders } = await import("@/lib/reminders/start");
    startReminders();
  }
  // Imported lazily: the dispatcher pulls in node:http, the database client and crypto.
  if (env().PRUNE_INTERVAL_SECONDS > 0) {
    const { startPruner } = await import("@/lib/maintenance/prune");
    startPruner();
  }
  if (env().WEBHOOK_DISPATCHER === "off") {
    const { log } = await import("@/lib/log");
    log.info("webhook dispatcher off on this instance (WEBHOOK_DISPATCHER=off)");
    return;
  }
  const { startDispatcher } = await import("@/lib/webhooks/dispatcher");
  startDispatcher();
}

/** The process's metrics and their server on METRICS_HOST:METRICS_PORT, never the public port. */
async function startMetrics() {
  const { env, EnvError } = await import("@/lib/env");
  const { METRICS_PORT: port, METRICS_HOST: host, PORT } = env();
  if (port === undefined) return undefined;
  if (port === PORT) {
    throw new EnvError(
      "The environment variable METRICS_PORT must differ from PORT: /metrics is never served on the public port.",
    );
  }
  const { enableMetrics } = await import("@/lib/metrics/metrics");
  const { startMetricsServer } = await import("@/lib/metrics/server");
  const { webhookBacklog } = await import("@/lib/webhooks/backlog");
  const { databaseConnections } = await import("@/lib/db/client");
  const metrics = enableMetrics({ webhookBacklog: () => webhookBacklog(), databaseConnections });
  const server = await startMetricsServer(metrics, port, host);
  const { log } = await import("@/lib/log");
  log.info("metrics served", { url: `http://${host.includes(":") ? `[${host}]` : host}:${server.port}/metrics` });
  return server;
}
