import { z } from "zod";

/**
 * The typed environment. Parsed once, lazily (Next.js evaluates modules while building, when
 * none of this is set). A bad value fails with a sentence that names the variable.
 */
const flag = z
  .enum(["0", "1", "true", "false"])
  .optional()
  .transform((v) => v === "1" || v === "true");

const limit = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .transform((v) => v ?? fallback);

/**
 * A whole number from `min` to `max`, `fallback` when unset. What a bad value is told, each left to
 * zod when not given: `notWhole` (not a number, or a fraction), `belowMin`, `aboveMax`
 * (`outOfRange`: both).
 */
const wholeNumber = (
  range: { min: number; max: number; fallback: number },
  say: { notWhole?: string; outOfRange?: string; belowMin?: string; aboveMax?: string } = {},
) => {
  const message = (text: string | undefined) => (text === undefined ? undefined : { message: text });
  return z.coerce
    .number(message(say.notWhole))
    .int(message(say.notWhole))
    .min(range.min, message(say.belowMin ?? say.outOfRange))
    .max(range.max, message(say.aboveMax ?? say.outOfRange))
    .optional()
    .transform((v) => v ?? range.fallback);
};

export const envSchema = z.object({
  /** unset or `file:<dir>`: embedded PGlite; `memory://`: PGlite in memory (tests); `postgres(ql)://…`: PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^(file:.+|memory:\/\/.*|postgres(ql)?:\/\/.+)$/, {
      message: "must be file:<directory>, memory:// or postgresql://user@host:port/db",
    })
    .optional()
    .transform((v) => v ?? "file:./data/pglite"),
  /**
   * A direct (non-pooled) PostgreSQL connection, for what needs one session (LISTEN/NOTIFY, the
   * migrations and their advisory lock): required when DATABASE_URL is marked `?pgbouncer=true`
   * (a transaction-mode pooler), ignored otherwise (lib/db/pooler-url.ts).
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, { message: "must be postgresql://user@host:port/db, straight to PostgreSQL" })
    .optional(),
  PORT: wholeNumber({ min: 1, max: 65535, fallback: 3000 }),
  /** Prometheus's `GET /metrics` on this port of its own (lib/metrics/server.ts); unset: no metrics at all. */
  METRICS_PORT: z.coerce
    .number({ message: "must be a port number from 1 to 65535" })
    .int({ message: "must be a port number from 1 to 65535" })
    .min(1, { message: "must be a port number from 1 to 65535" })
    .max(65535, { message: "must be a port number from 1 to 65535" })
    .optional(),
  /** The address the metrics port listens on: loopback unless the scraper is on another machine. */
  METRICS_HOST: z
    .string()
    .optional()
    .transform((v) => v ?? "127.0.0.1"),
  APP_URL: z.url({ message: "must be an absolute URL such as http://localhost:3000" }).optional(),
  /** Keys every hash, encryption and session of this deployment. Generated on first start. */
  SERVER_SECRET: z
    .string()
    .min(32, { message: "must be at least 32 characters (npm start generates one into .env.local)" })
    .optional(),
  SEED_ADMIN_EMAIL: z.email({ message: "must be an e-mail address" }).optional(),
  SEED_ADMIN_PASSWORD: z.string().min(1, { message: "must not be empty" }).optional(),
  RATE_LIMIT_BURST: limit(100),
  RATE_LIMIT_DAILY: limit(200_000),
  /** Access-token signing keys rotate by themselves after this many days; 0: only `signing-key:rotate`. */
  SIGNING_KEY_ROTATION_DAYS: wholeNumber(
    { min: 0, max: 3650, fallback: 90 },
    {
      notWhole: "must be a whole number of days (0 turns automatic rotation off)",
      outOfRange: "must be 0 (off) or a number of days from 1 to 3650",
    },
  ),
  WEBHOOK_ALLOW_PRIVATE: flag,
  /** `off`: this instance does not deliver webhooks (another instance sharing the database does). */
  WEBHOOK_DISPATCHER: z
    .enum(["on", "off"], { message: "must be on or off" })
    .optional()
    .transform((v) => v ?? "on"),
  /**
   * SPEC.md › Apps that grow without reinstalls: an app's webhook endpoint that answered nothing
   * but failures for this many days is disabled (fractions allowed, for tests).
   */
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce
    .number({ message: "must be a number of days greater than 0" })
    .positive({ message: "must be a number of days greater than 0" })
    .default(5),
  /**
   * The delay before a failed webhook's first retry; the later ones follow the schedule (1 min,
   * 2 min, 5 min, …). Shorter than 30 s only where a test waits for that retry (the e2e server).
   */
  WEBHOOK_FIRST_RETRY_SECONDS: wholeNumber(
    { min: 1, max: 30, fallback: 30 },
    {
      notWhole: "must be a whole number of seconds from 1 to 30",
      outOfRange: "must be a whole number of seconds from 1 to 30",
    },
  ),
  /**
   * How long a claimed webhook stays with the instance that claimed it. When that instance dies
   * mid-delivery, another one retries the event after this long. Above the 10 s delivery timeout.
   */
  WEBHOOK_LEASE_SECONDS: wholeNumber(
    { min: 15, max: 3600, fallback: 60 },
    { belowMin: "must be at least 15 (seconds; a delivery may take 10)" },
  ),
  /**
   * A used refresh token presented again by its own client within this many seconds of its first
   * use gets a new pair instead of revoking its family (a lost response, two processes of one app).
   * `0`: strict single use.
   */
  REFRESH_TOKEN_REUSE_SECONDS: wholeNumber(
    { min: 0, max: 300, fallback: 30 },
    {
      notWhole: "must be a whole number of seconds from 0 to 300",
      belowMin: "must be a whole number of seconds from 0 to 300",
      aboveMax: "must be at most 300 (seconds; 0 turns the reuse window off)",
    },
  ),
  /**
   * How often this instance prunes expired and consumed rows (lib/maintenance/prune.ts); `0`: never
   * on this instance. One instance prunes at a time, so every instance may keep it on.
   */
  PRUNE_INTERVAL_SECONDS: wholeNumber(
    { min: 0, max: 86_400, fallback: 600 },
    {
      notWhole: "must be a whole number of seconds (0 turns pruning off)",
      outOfRange: "must be 0 (off) or a number of seconds from 10 to 86400",
    },
  ).refine((v) => v === 0 || v >= 10, { message: "must be 0 (off) or a number of seconds from 10 to 86400" }),
  /**
   * `off`: this instance does not count API requests per caller (lib/usage/); for the bench's
   * comparison. The screens then show what other instances counted.
   */
  API_USAGE_COUNTING: z
    .enum(["on", "off"], { message: "must be on or off" })
    .optional()
    .transform((v) => v ?? "on"),
  /** Reminders are also e-mailed through this SMTP server (`smtp://user:pass@host:587`, `smtps://…`). */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/.+/, { message: "must be an SMTP URL such as smtp://user:password@mail.example.com:587" })
    .optional(),
  /** The sender of reminder e-mails. */
  MAIL_FROM: z
    .string()
    .min(3, { message: "must be an address such as Token Service <no-reply@example.com>" })
    .optional(),
  /** How often this instance checks the reminder milestones (lib/reminders/); `0`: never on this instance. */
  REMINDER_CHECK_SECONDS: wholeNumber(
    { min: 0, max: 86_400, fallback: 3600 },
    {
      notWhole: "must be a whole number of seconds (0 turns the check off)",
      outOfRange: "must be 0 (off) or a number of seconds from 1 to 86400",
    },
  ),
  /** Proxies in front of the app whose X-Forwarded-For entries are believed (lib/client-address.ts). */
  TRUSTED_PROXY_HOPS: wholeNumber({ min: 0, max: 10, fallback: 0 }),
  /**
   * Seconds a client has to send a whole request, headers and body (scripts/serve.mjs reads it);
   * a slower one is answered 400 and its connection closed. Headers alone: at most 10 s.
   */
  REQUEST_TIMEOUT_SECONDS: wholeNumber(
    { min: 1, max: 300, fallback: 20 },
    {
      notWhole: "must be a whole number of seconds from 1 to 300",
      outOfRange: "must be a whole number of seconds from 1 to 300",
    },
  ),
  /**
   * GitHub's secret scanning public keys (`{"public_keys":[…]}`), for POST
   * /credentials/github-secret-scanning; unset: that endpoint answers 404.
   */
  SECRET_SCANNING_KEYS_URL: z
    .url({ message: "must be an absolute URL such as https://api.github.com/meta/public_keys/secret_scanning" })
    .optional(),
  /** POST /api/operator answers callers on other machines too (default: loopback only). */
  OPERATOR_ALLOW_REMOTE: flag,
  LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"])
    .optional()
    .transform((v) => v ?? "info"),
});

export type Env = z.infer<typeof envSchema>;

/**
 * The server's own configuration is wrong. Not a Refusal: no caller's input is refused, so no
 * API or form maps it to a 4xx; it stops start-up (or a request, as a logged server_error) and the
 * CLI prints its message, which names the variable.
 */
export class EnvError extends Error {
  override name = "EnvError";
}

let cached: Env | undefined;

export function env(): Env {
  if (!cached) cached = parseEnv(process.env);
  return cached;
}

/** For tests that change the environment. */
export function resetEnvCache(): void {
  cached = undefined;
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings mean "not set", as in most .env files.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? "environment");
  throw new EnvError(`The environment variable ${name} ${issue?.message ?? "is invalid"}.`);
}

export function appUrl(): string {
  const e = env();
  return (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
}

export function serverSecret(): string {
  const secret = env().SERVER_SECRET;
  if (!secret) {
    throw new EnvError(
      "The environment variable SERVER_SECRET is not set. `npm start` generates one into .env.local; set it yourself when you start the server another way.",
    );
  }
  return secret;
}
