import { tracingConfig } from "./config";
import { setTracing, type Tracing, tracing } from "./tracing";

/**
 * Turns tracing on when an OTLP endpoint is set (./config.ts), from instrumentation.ts before the
 * routes are registered: the SDK (./otel.ts) is imported here and nowhere else, so with no
 * endpoint nothing of OpenTelemetry is loaded. Also sets the seam lib/log.ts reads, so log lines
 * written inside a span carry its trace id. Returns the tracing, or undefined when it is off.
 */
export async function startTracing(
  source: Record<string, string | undefined> = process.env,
): Promise<Tracing | undefined> {
  const already = tracing();
  if (already) return already;
  const config = tracingConfig(source);
  if (config === undefined) return undefined;
  const { startOpenTelemetry } = await import("./otel");
  const started = startOpenTelemetry(config);
  setTracing(started);
  (
    globalThis as { __tokenServiceLogTrace?: () => { traceId: string; spanId: string } | undefined }
  ).__tokenServiceLogTrace = () => started.logFields();
  return started;
}

/** Exports what is buffered and turns tracing off (the server's shutdown; tests). */
export async function stopTracing(): Promise<void> {
  const current = tracing();
  if (!current) return;
  setTracing(undefined);
  (globalThis as { __tokenServiceLogTrace?: unknown }).__tokenServiceLogTrace = undefined;
  await current.shutdown();
}
