/**
 * Next.js instrumentation: runs once when a server instance starts. It starts
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
 * - the last flush of API usage counts (lib/usage/counter.ts) when scripts/serve.mjs stops.
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
  const { registerDirectRouter } = await import("@/lib/api/direct-router");
  const { apiRoutes } = await import("@/app/route-table");
  const { env } = await import("@/lib/env");
  registerDirectRouter(apiRoutes, process.env.__NEXT_PRIVATE_ORIGIN ?? "http://localhost", {
    trustedProxyHops: env().TRUSTED_PROXY_HOPS,
  });
  // Counts gathered since the last second's flush are written before the process exits.
  const { usageCounter } = await import("@/lib/usage/counter");
  (globalThis as { __tokenServiceBeforeExit?: () => Promise<unknown> }).__tokenServiceBeforeExit = () =>
    usageCounter().stop();
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
