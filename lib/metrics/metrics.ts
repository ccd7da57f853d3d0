import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { describeError, log } from "@/lib/log";
import { FixedCounter, HttpFamilies } from "./families";
import {
  DELIVERY_OUTCOMES,
  ERROR_CODES,
  GRANT_TYPES,
  type GrantTypeLabel,
  indexIn,
  methodIndex,
  OTHER,
  POOL_STATES,
  routePattern,
  statusKey,
  USAGE_OUTCOMES,
  USER_TYPES,
} from "./labels";

/**
 * The process's Prometheus metrics (SPEC.md › Running it as a platform runs it), on only when
 * METRICS_PORT is set (instrumentation.ts calls `enableMetrics` and starts ./server.ts). Off, every
 * `count…` below returns at its first line. The registry and the counts are kept on globalThis:
 * Next.js bundles a module once per chunk that imports it, and the route handlers, the direct
 * router and instrumentation.ts are different chunks of one process.
 */

/** The webhook outbox as one scrape reads it (lib/webhooks/backlog.ts). */
export interface WebhookBacklog {
  pending: number;
  /** How long the longest-waiting deliverable event has been due; 0 when none is. */
  oldestDueSeconds: number;
}

/** The database connections of this process (lib/db/client.ts's `databaseConnections`). */
export interface PoolConnections {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** What the scrape-time gauges read: set by instrumentation.ts (lib/metrics may not import webhooks or db). */
export interface MetricsReaders {
  webhookBacklog?: () => Promise<WebhookBacklog>;
  databaseConnections?: () => PoolConnections | undefined;
}

/** A scrape waits at most this long for the outbox's count; past it the gauges read NaN. */
const READ_TIMEOUT_MS = 2_000;

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly http: HttpFamilies;
  readonly tokensIssued: FixedCounter;
  readonly tokenErrors: FixedCounter;
  readonly refusals: FixedCounter;
  readonly integrationRequests: FixedCounter;
  readonly webhookDeliveries: FixedCounter;
  readers: MetricsReaders = {};
  /** The backlog reading of the scrape under way: its two gauges share one query. */
  private backlog: Promise<WebhookBacklog | undefined> | undefined;

  constructor(declaredRoutes: ReadonlySet<string>) {
    const registry = this.registry;
    collectDefaultMetrics({ register: registry });
    this.http = new HttpFamilies(registry, declaredRoutes);
    this.tokensIssued = new FixedCounter(
      registry,
      "oauth_tokens_issued_total",
      "Access tokens issued, by grant (location_token: POST /oauth/locationToken) and token level.",
      [
        ["grant_type", GRANT_TYPES],
        ["user_type", USER_TYPES],
      ],
    );
    this.tokenErrors = new FixedCounter(
      registry,
      "oauth_token_errors_total",
      "Token requests refused, by grant (other: missing or unsupported) and error code.",
      [
        ["grant_type", GRANT_TYPES],
        ["error", ERROR_CODES],
      ],
    );
    this.refusals = new FixedCounter(registry, "api_refusals_total", "Error answers of the HTTP API, by error code.", [
      ["error", ERROR_CODES],
    ]);
    this.integrationRequests = new FixedCounter(
      registry,
      "private_integration_requests_total",
      "Requests made with a private-integration token, by outcome as usage counts them (5xx are not counted).",
      [["outcome", USAGE_OUTCOMES]],
    );
    this.webhookDeliveries = new FixedCounter(
      registry,
      "webhook_deliveries_total",
      "Webhook delivery attempts made by this instance, by outcome.",
      [["outcome", DELIVERY_OUTCOMES]],
    );
    const metrics = this;
    new Gauge({
      name: "webhook_events_pending",
      help: "Webhook events waiting for a first attempt or a retry (every instance sharing the database reads the same).",
      registers: [registry],
      async collect() {
        this.set((await metrics.readBacklog())?.pending ?? Number.NaN);
      },
    });
    new Gauge({
      name: "webhook_oldest_pending_seconds",
      help: "How long the longest-waiting webhook event has been due for its attempt (endpoints disabled aside); 0 when none is due.",
      registers: [registry],
      async collect() {
        this.set((await metrics.readBacklog())?.oldestDueSeconds ?? Number.NaN);
      },
    });
    new Gauge({
      name: "database_pool_connections",
      help: "This process's database connections (PostgreSQL: its pg pools together; PGlite: its one connection).",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        const now = metrics.readers.databaseConnections?.();
        for (const state of POOL_STATES) this.set({ state }, now?.[state] ?? 0);
      },
    });
    new Gauge({
      name: "database_pool_max_connections",
      help: "How many connections this process's database pools may open.",
      registers: [registry],
      collect() {
        this.set(metrics.readers.databaseConnections?.()?.max ?? 0);
      },
    });
  }

  private readBacklog(): Promise<WebhookBacklog | undefined> {
    const read = this.readers.webhookBacklog;
    if (!read) return Promise.resolve(undefined);
    if (!this.backlog) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the outbox was not read in time")), READ_TIMEOUT_MS);
      });
      this.backlog = Promise.race([read(), timeout])
        .catch((error: unknown) => {
          log.warn("metrics: the webhook outbox could not be read", { error: describeError(error) });
          return undefined;
        })
        .finally(() => {
          clearTimeout(timer);
          // Both gauges of a scrape started their reads together; the next scrape reads anew.
          setTimeout(() => {
            this.backlog = undefined;
          }, 0);
        });
    }
    return this.backlog;
  }
}

interface Holder {
  __tokenServiceMetrics?: ServiceMetrics;
  /** The route table's patterns (lib/api/direct-router.ts declares them), whatever the order of start-up. */
  __tokenServiceMetricRoutes?: Set<string>;
}
const holder = globalThis as typeof globalThis & Holder;

function declaredRoutes(): Set<string> {
  holder.__tokenServiceMetricRoutes ??= new Set();
  return holder.__tokenServiceMetricRoutes;
}

/** This process's metrics, made on the first call. */
export function enableMetrics(readers?: MetricsReaders): ServiceMetrics {
  holder.__tokenServiceMetrics ??= new ServiceMetrics(declaredRoutes());
  if (readers) holder.__tokenServiceMetrics.readers = readers;
  return holder.__tokenServiceMetrics;
}

/** The metrics when on. */
export function serviceMetrics(): ServiceMetrics | undefined {
  return holder.__tokenServiceMetrics;
}

/** Tests: metrics off again (the next `enableMetrics` starts from zero). */
export function disableMetrics(): void {
  holder.__tokenServiceMetrics = undefined;
}

/** The route table's folder paths: each gets its own `route` label; the pattern of each is returned. */
export function declareHttpRoutes(folderPaths: readonly string[]): string[] {
  const patterns = folderPaths.map(routePattern);
  for (const pattern of patterns) declaredRoutes().add(pattern);
  return patterns;
}

/** The `route` label of a request that no declared route answered (screens, the JSON 404, Next.js's own). */
export const OTHER_ROUTE = OTHER;

/** An answer: `route` a pattern `declareHttpRoutes` returned (anything else counts as `other`). */
export function countHttpRequest(route: string, method: string | undefined, status: number, seconds: number): void {
  const metrics = holder.__tokenServiceMetrics;
  if (metrics === undefined) return;
  metrics.http.record(route, methodIndex(method), statusKey(status), seconds);
}

/** An access token issued by `grant` at `userType` (the token response's). */
export function countTokenIssued(grant: GrantTypeLabel, userType: unknown): void {
  const metrics = holder.__tokenServiceMetrics;
  if (metrics === undefined) return;
  const user = userType === "Company" ? 0 : userType === "Location" ? 1 : 2;
  const counter = metrics.tokensIssued;
  counter.inc(indexIn(GRANT_TYPES, grant) * (counter.strides[0] as number) + user);
}

/** A token request of `grant` (a supported grant, else `other`) refused with `code`. */
export function countTokenError(grant: string | undefined, code: string): void {
  const metrics = holder.__tokenServiceMetrics;
  if (metrics === undefined) return;
  const counter = metrics.tokenErrors;
  counter.inc(indexIn(GRANT_TYPES, grant) * (counter.strides[0] as number) + indexIn(ERROR_CODES, code));
}

/** An error answer of the HTTP API. */
export function countRefusal(code: string): void {
  holder.__tokenServiceMetrics?.refusals.inc(indexIn(ERROR_CODES, code));
}

/** A request made with a private-integration token, as usage counts it. */
export function countIntegrationRequest(outcome: (typeof USAGE_OUTCOMES)[number]): void {
  const metrics = holder.__tokenServiceMetrics;
  if (metrics === undefined) return;
  metrics.integrationRequests.inc(outcome === "ok" ? 0 : outcome === "refused" ? 1 : 2);
}

/** A webhook delivery attempt's outcome. */
export function countWebhookDelivery(outcome: string): void {
  holder.__tokenServiceMetrics?.webhookDeliveries.inc(indexIn(DELIVERY_OUTCOMES, outcome));
}
