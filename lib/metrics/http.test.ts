import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { directRouter } from "@/lib/api/direct-router";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { withAgencyApp } from "@/lib/testing/oauth";
import { parseScrape } from "@/lib/testing/prometheus";
import { OTHER } from "./labels";
import { disableMetrics, enableMetrics, type ServiceMetrics } from "./metrics";

/**
 * The metrics as the server counts them: the real route table behind the direct router on a
 * node:http server (as scripts/serve.mjs runs it), real grants and private-integration tokens on the
 * test database, and every path a client might send.
 */

let server: Server;
let base: string;
let metrics: ServiceMetrics;
let agency: TestAgency;
let pit: string;
const made = withAgencyApp(2);

beforeAll(async () => {
  disableMetrics();
  metrics = enableMetrics();
  const direct = directRouter(apiRoutes, "http://localhost:3000");
  // Whatever the router leaves to Next.js gets the JSON 404 of app/[...path] there.
  server = createServer((request, response) => {
    if (direct(request, response)) return;
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not_found"}');
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  pit = (await makeIntegration(agency, { locationId: agency.locations[0]!.id, name: "Scraped" })).token;
});

afterAll(async () => {
  disableMetrics();
  await new Promise((done) => server.close(done));
});

const scrapeRegistry = async () => parseScrape(await metrics.registry.metrics());
const version = { version: "2021-07-28" };
const fetchLocation = (id: string, token: string) =>
  fetch(`${base}/locations/${id}`, { headers: { authorization: `Bearer ${token}`, ...version } });
const postTokenForm = (fields: Record<string, string>) =>
  fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

describe("requests through the router, counted", () => {
  it("a refresh, a refused refresh, a private integration's call and its refusal, and a path nothing serves", async () => {
    const before = await scrapeRegistry();
    const at = (s: typeof before, family: string, labels: Record<string, string>) => s.value(family, labels) ?? 0;
    const client = { client_id: made.app.app.clientId, client_secret: made.app.clientSecret };
    expect(
      (await postTokenForm({ grant_type: "refresh_token", refresh_token: made.refreshToken, ...client })).status,
    ).toBe(200);
    expect((await postTokenForm({ grant_type: "refresh_token", refresh_token: "nope", ...client })).status).toBe(400);
    expect((await postTokenForm({ grant_type: "password", ...client })).status).toBe(400);
    expect((await fetchLocation(agency.locations[0]!.id, pit)).status).toBe(200);
    expect((await fetchLocation(agency.locations[1]!.id, pit)).status).toBe(403);
    expect((await fetch(`${base}/nothing/here/abc123`)).status).toBe(404);
    const after = await scrapeRegistry();
    const grew = (family: string, labels: Record<string, string>) =>
      at(after, family, labels) - at(before, family, labels);
    const route = "/locations/{locationId}";
    expect(grew("http_requests_total", { route, method: "GET", status: "200" })).toBe(1);
    expect(grew("http_requests_total", { route, method: "GET", status: "403" })).toBe(1);
    expect(grew("http_requests_total", { route: "/oauth/token", method: "POST", status: "200" })).toBe(1);
    expect(grew("http_requests_total", { route: "/oauth/token", method: "POST", status: "400" })).toBe(2);
    expect(grew("http_requests_total", { route: OTHER, method: "GET", status: "404" })).toBe(1);
    const durations = after.histogram("http_request_duration_seconds", { route, method: "GET" });
    expect(durations?.count).toBeGreaterThanOrEqual(2);
    expect(durations?.sum).toBeGreaterThan(0);
    expect(grew("oauth_tokens_issued_total", { grant_type: "refresh_token", user_type: "Company" })).toBe(1);
    expect(grew("oauth_token_errors_total", { grant_type: "refresh_token", error: "invalid_grant" })).toBe(1);
    expect(grew("oauth_token_errors_total", { grant_type: OTHER, error: "unsupported_grant_type" })).toBe(1);
    expect(grew("private_integration_requests_total", { outcome: "ok" })).toBe(1);
    expect(grew("private_integration_requests_total", { outcome: "refused" })).toBe(1);
    expect(grew("api_refusals_total", { error: "forbidden" })).toBe(1);
    expect(grew("api_refusals_total", { error: "invalid_grant" })).toBe(1);
  });

  it("property: whatever path, id or method is requested, `route` is a pattern of the route table or `other`", async () => {
    const patterns = new Set([...apiRoutes.map((r) => r.pattern), OTHER]);
    const segment = fc.oneof(
      fc.constantFrom("locations", "contacts", "oauth", "token", "api", "health", "webhooks", "events", ".well-known"),
      fc.uuid(),
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,24}$/),
      fc.emailAddress(),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join("/")}`);
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.constantFrom("GET", "POST", "DELETE", "OPTIONS", "PATCH"),
        fc.boolean(),
        async (p, method, slash) => {
          const response = await fetch(`${base}${p}${slash ? "/" : ""}`, {
            method,
            headers: { authorization: `Bearer ${pit}` },
          });
          await response.arrayBuffer();
        },
      ),
      { numRuns: 60 },
    );
    const s = await scrapeRegistry();
    const routes = [
      ...(s.families.get("http_requests_total")?.samples ?? []),
      ...(s.families.get("http_request_duration_seconds_count")?.samples ?? []),
    ].map((sample) => sample.labels.route ?? "");
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) expect(patterns, route).toContain(route);
    expect(routes.join("\n")).not.toContain(pit);
  });
});
