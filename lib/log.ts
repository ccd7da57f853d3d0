import { env } from "@/lib/env";
import { describeDatabaseError } from "@/lib/log-database-error";

/**
 * Structured logs, one JSON object a line. Callers pass ids and codes, never secrets; keys that
 * look like secrets are redacted anyway as a second line of defence.
 */
type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
const secretKey = /pass(word)?|secret|token|code|authorization|cookie|hash/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = secretKey.test(k) && k !== "statusCode" && k !== "errorCode" ? "[redacted]" : v;
  }
  return out;
}

function threshold(): number {
  try {
    return order[env().LOG_LEVEL];
  } catch {
    return order.info;
  }
}

/**
 * With OpenTelemetry tracing on, lib/telemetry/start.ts sets this: the current span's trace id
 * (in the shape of x-trace-id) and span id, so a line written inside a request or a webhook
 * delivery carries the id of its trace. Unset, lines are as before.
 */
const traced = globalThis as typeof globalThis & {
  __tokenServiceLogTrace?: () => { traceId: string; spanId: string } | undefined;
};

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (order[level] < threshold()) return;
  const span = traced.__tokenServiceLogTrace?.();
  const ids = span === undefined ? undefined : fields.traceId === undefined ? span : { spanId: span.spanId };
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...ids, ...redact(fields) });
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};

/**
 * A loggable description of an unknown error, in a sentence: its name and the first line of its
 * message that says something (a Prisma message starts with a blank line), no stack. A database
 * error is described by its codes only (./log-database-error.ts), never by its message, which may
 * carry SQL or the values of a row.
 */
export function describeError(error: unknown): string {
  const database = describeDatabaseError(error);
  if (database) return database;
  if (error instanceof Error) {
    const line = error.message
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.length > 0);
    return `${error.name}: ${(line ?? "(no message)").slice(0, 300)}`;
  }
  return String(error).slice(0, 300);
}

/**
 * SPEC.md: no stack traces in any log line. Next.js logs some refusals of its own (a malformed
 * server-action request, an unknown action id) with `console.error(error)`; from instrumentation.ts
 * on, every console line of the server is reduced to one JSON line with the error's name and
 * message, as our own logs are.
 */
export function guardConsole(): void {
  const holder = globalThis as typeof globalThis & { __consoleGuarded?: boolean };
  if (holder.__consoleGuarded) return;
  holder.__consoleGuarded = true;
  const text = (args: unknown[]) =>
    args
      .map((a) => (a instanceof Error ? describeError(a) : typeof a === "string" ? a : safeJson(a)))
      .join(" ")
      .split("\n")
      .filter((line) => !/^\s+at\s/.test(line) && !/^\s*Read more:/.test(line))
      .join(" ")
      .trim();
  const route =
    (level: Level) =>
    (...args: unknown[]) => {
      const message = text(args);
      if (message) write(level, message.replace(/^⨯\s*/, "").slice(0, 1_000), { source: "console" });
    };
  console.error = route("error");
  console.warn = route("warn");
}

function safeJson(value: unknown): string {
  try {
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
