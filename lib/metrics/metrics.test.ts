import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorStatus } from "@/lib/api/http-error";
import { parseScrape } from "@/lib/testing/prometheus";
import { DURATION_BUCKETS } from "./families";
import { DELIVERY_OUTCOMES, ERROR_CODES, GRANT_TYPES, METHODS, OTHER, USAGE_OUTCOMES, USER_TYPES } from "./labels";
import {
  countHttpRequest,
  countIntegrationRequest,
  countRefusal,
  countTokenError,
  countTokenIssued,
  countWebhookDelivery,
  declareHttpRoutes,
  disableMetrics,
  enableMetrics,
  type MetricsReaders,
  serviceMetrics,
} from "./metrics";

/** The counting rules alone, scraped through prom-client's registry and read back with a text-format parser. */

const [location, token] = declareHttpRoutes(["/locations/[locationId]", "/oauth/token"]) as [string, string];

async function scraped(readers?: MetricsReaders) {
  const metrics = enableMetrics(readers);
  return parseScrape(await metrics.registry.metrics());
}

beforeEach(() => disableMetrics());
afterEach(() => disableMetrics());

describe("off (no METRICS_PORT)", () => {
  it("counts nothing and keeps no registry", () => {
    countHttpRequest(location, "GET", 200, 0.001);
    countTokenIssued("refresh_token", "Company");
    countRefusal("invalid_token");
    countIntegrationRequest("ok");
    countWebhookDelivery("delivered");
    expect(serviceMetrics()).toBeUndefined();
  });
});

describe("on", () => {
  it("answers the process's own metrics: CPU, memory, event-loop lag, heap", async () => {
    const s = await scraped();
    for (const family of [
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(s.families.has(family), family).toBe(true);
    }
  });

  it("counts answers by route pattern, method and status, with their durations in a histogram", async () => {
    enableMetrics();
    expect(location).toBe("/locations/{locationId}");
    for (let i = 0; i < 3; i++) countHttpRequest(location, "GET", 200, 0.002);
    countHttpRequest(location, "GET", 403, 0.02);
    countHttpRequest(token, "POST", 400, 3);
    countHttpRequest("/locations/abc123", "GET", 200, 0.001); // not declared: other
    countHttpRequest(location, "PROPFIND", 999, 0.001);
    const s = await scraped();
    expect(s.families.get("http_requests_total")?.type).toBe("COUNTER");
    expect(s.families.get("http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(s.value("http_requests_total", { route: location, method: "GET", status: "200" })).toBe(3);
    expect(s.value("http_requests_total", { route: location, method: "GET", status: "403" })).toBe(1);
    expect(s.value("http_requests_total", { route: token, method: "POST", status: "400" })).toBe(1);
    expect(s.value("http_requests_total", { route: OTHER, method: "GET", status: "200" })).toBe(1);
    expect(s.value("http_requests_total", { route: location, method: OTHER, status: OTHER })).toBe(1);
    const get = s.histogram("http_request_duration_seconds", { route: location, method: "GET" });
    expect(get?.count).toBe(4);
    expect(get?.sum).toBeCloseTo(0.026, 6);
    // Cumulative: three at 2 ms are within 2.5 ms, the fourth (20 ms) within 25 ms.
    expect(get?.buckets).toMatchObject({ "0.001": 0, "0.0025": 3, "0.01": 3, "0.025": 4, "10": 4, "+Inf": 4 });
    expect(Object.keys(get?.buckets ?? {})).toHaveLength(DURATION_BUCKETS.length + 1);
    const slow = s.histogram("http_request_duration_seconds", { route: token, method: "POST" });
    expect(slow?.buckets).toMatchObject({ "2.5": 0, "5": 1, "+Inf": 1 });
  });

  it("counts tokens, token errors, refusals, integrations' requests and webhook deliveries, zeros included", async () => {
    enableMetrics();
    countTokenIssued("refresh_token", "Company");
    countTokenIssued("refresh_token", "Company");
    countTokenIssued("location_token", "Location");
    countTokenIssued("authorization_code", "someone@example.com");
    countTokenError("refresh_token", "invalid_grant");
    countTokenError("password", "unsupported_grant_type");
    countTokenError(undefined, "invalid_request");
    countRefusal("rate_limited");
    countRefusal("a code nobody knows");
    countIntegrationRequest("ok");
    countIntegrationRequest("ok");
    countIntegrationRequest("limited");
    countWebhookDelivery("delivered");
    countWebhookDelivery("claim_lost");
    const s = await scraped();
    const v = (family: string, labels: Record<string, string>) => s.value(family, labels);
    expect(v("oauth_tokens_issued_total", { grant_type: "refresh_token", user_type: "Company" })).toBe(2);
    expect(v("oauth_tokens_issued_total", { grant_type: "location_token", user_type: "Location" })).toBe(1);
    expect(v("oauth_tokens_issued_total", { grant_type: "authorization_code", user_type: OTHER })).toBe(1);
    expect(v("oauth_tokens_issued_total", { grant_type: "client_credentials", user_type: "Company" })).toBe(0);
    expect(v("oauth_token_errors_total", { grant_type: "refresh_token", error: "invalid_grant" })).toBe(1);
    expect(v("oauth_token_errors_total", { grant_type: OTHER, error: "unsupported_grant_type" })).toBe(1);
    expect(v("oauth_token_errors_total", { grant_type: OTHER, error: "invalid_request" })).toBe(1);
    expect(v("api_refusals_total", { error: "rate_limited" })).toBe(1);
    expect(v("api_refusals_total", { error: OTHER })).toBe(1);
    expect(v("api_refusals_total", { error: "invalid_token" })).toBe(0);
    expect(v("private_integration_requests_total", { outcome: "ok" })).toBe(2);
    expect(v("private_integration_requests_total", { outcome: "refused" })).toBe(0);
    expect(v("private_integration_requests_total", { outcome: "limited" })).toBe(1);
    expect(v("webhook_deliveries_total", { outcome: "delivered" })).toBe(1);
    expect(v("webhook_deliveries_total", { outcome: "claim_lost" })).toBe(1);
    expect(s.families.get("oauth_tokens_issued_total")?.samples).toHaveLength(GRANT_TYPES.length * USER_TYPES.length);
  });

  it("reads the webhook backlog once per scrape for its two gauges, and the pool's connections", async () => {
    let reads = 0;
    const s = await scraped({
      webhookBacklog: async () => {
        reads++;
        return { pending: 7, oldestDueSeconds: 42.5 };
      },
      databaseConnections: () => ({ total: 4, idle: 3, waiting: 1, max: 25 }),
    });
    expect(reads).toBe(1);
    expect(s.value("webhook_events_pending")).toBe(7);
    expect(s.value("webhook_oldest_pending_seconds")).toBe(42.5);
    expect(s.value("database_pool_connections", { state: "total" })).toBe(4);
    expect(s.value("database_pool_connections", { state: "idle" })).toBe(3);
    expect(s.value("database_pool_connections", { state: "waiting" })).toBe(1);
    expect(s.value("database_pool_max_connections")).toBe(25);
    await new Promise((done) => setTimeout(done, 5));
    await scraped();
    expect(reads).toBe(2);
  });

  it("reads NaN for the backlog when the outbox cannot be read, and 0 connections before the database is open", async () => {
    const s = await scraped({
      webhookBacklog: async () => {
        throw new Error("connection refused");
      },
      databaseConnections: () => undefined,
    });
    expect(s.value("webhook_events_pending")).toBeNaN();
    expect(s.value("webhook_oldest_pending_seconds")).toBeNaN();
    expect(s.value("database_pool_connections", { state: "total" })).toBe(0);
  });

  it("lists SPEC.md's error codes exactly as lib/api does", () => {
    expect(ERROR_CODES.filter((code) => code !== OTHER).sort()).toEqual(Object.keys(errorStatus).sort());
  });
});

describe("no label value outside its fixed list", () => {
  const fixed: Record<string, Record<string, readonly string[]>> = {
    http_requests_total: { route: ["/locations/{locationId}", "/oauth/token", OTHER], method: METHODS },
    http_request_duration_seconds_bucket: {
      route: ["/locations/{locationId}", "/oauth/token", OTHER],
      method: METHODS,
    },
    oauth_tokens_issued_total: { grant_type: GRANT_TYPES, user_type: USER_TYPES },
    oauth_token_errors_total: { grant_type: GRANT_TYPES, error: ERROR_CODES },
    api_refusals_total: { error: ERROR_CODES },
    private_integration_requests_total: { outcome: USAGE_OUTCOMES },
    webhook_deliveries_total: { outcome: DELIVERY_OUTCOMES },
  };
  /** Anything a caller might hand over: ids, tokens, e-mails, addresses, paths, or the fixed values themselves. */
  const anyString = fc.oneof(
    fc.string(),
    fc.uuid().map((id) => `/locations/${id}`),
    fc.uuid().map((id) => `pit-${id}`),
    fc.emailAddress(),
    fc.ipV4(),
    fc.webPath(),
    fc.constantFrom(location, token, ...METHODS, ...ERROR_CODES, ...GRANT_TYPES, ...USER_TYPES, ...DELIVERY_OUTCOMES),
  );
  const call = fc.oneof(
    fc.tuple(fc.constant("http" as const), anyString, anyString, fc.integer({ min: -10, max: 1000 }), fc.double()),
    fc.tuple(fc.constant("issued" as const), anyString, anyString),
    fc.tuple(fc.constant("error" as const), anyString, anyString),
    fc.tuple(fc.constant("refusal" as const), anyString),
    fc.tuple(fc.constant("integration" as const), fc.constantFrom(...USAGE_OUTCOMES)),
    fc.tuple(fc.constant("delivery" as const), anyString),
  );

  it("property: whatever routes, methods, statuses, codes and outcomes are counted, every label value is one of its list", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        disableMetrics();
        enableMetrics();
        for (const one of calls) {
          if (one[0] === "http") countHttpRequest(one[1], one[2], one[3], Math.abs(one[4]) || 0);
          else if (one[0] === "issued") countTokenIssued(one[1] as (typeof GRANT_TYPES)[number], one[2]);
          else if (one[0] === "error") countTokenError(one[1], one[2]);
          else if (one[0] === "refusal") countRefusal(one[1]);
          else if (one[0] === "integration") countIntegrationRequest(one[1]);
          else countWebhookDelivery(one[1]);
        }
        const s = await scraped();
        if (calls.some((one) => one[0] === "http"))
          expect(s.families.get("http_requests_total")?.samples.length).toBeGreaterThan(0);
        expect(s.families.get("api_refusals_total")?.samples).toHaveLength(ERROR_CODES.length);
        for (const [family, labels] of Object.entries(fixed)) {
          for (const sample of s.families.get(family)?.samples ?? []) {
            for (const [label, allowed] of Object.entries(labels)) {
              expect(allowed, `${family}{${label}}`).toContain(sample.labels[label]);
            }
            const status = sample.labels.status;
            if (status !== undefined) expect(status).toMatch(/^([1-5]\d\d|other)$/);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
