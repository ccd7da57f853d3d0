import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { type ApiRequest, apiClient } from "@/lib/testing/api-client";
import { withAgencyApp } from "@/lib/testing/oauth";
import { expectCounted, expectRateLimited, startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";

/**
 * /oauth/installedLocations under the API's rate limits: a call with the app's Company token,
 * counted in the bucket of the app per agency, after the token is verified and before its level,
 * scope and query. RATE_LIMIT_BURST is 3 here so that the limit is reached in a few calls.
 */

const BURST = 3;
withBurstLimit(BURST);
const api = apiClient(apiRoutes);
const w = withAgencyApp(1);

/** GET /oauth/installedLocations of the app's own agency, with its Company token unless `request` says otherwise. */
const listOwnAgency = (query = `companyId=${w.agency.company.id}`, request: ApiRequest = { token: w.companyToken }) =>
  api.get(`/oauth/installedLocations?${query}`, request);

describe("GET /oauth/installedLocations is rate-limited like the API", () => {
  it("past RATE_LIMIT_BURST: 429 rate_limited with Retry-After; every answer has the headers", async () => {
    await startOfBurstWindow();
    for (let i = 1; i <= BURST; i++) expectCounted(await listOwnAgency(), BURST, BURST - i);
    expectRateLimited(await listOwnAgency());
    // Before the query: a bad query is also 429 while the window lasts.
    expect((await listOwnAgency("companyId=x".repeat(100))).status).toBe(429);
    // The same bucket as the app's other calls with its Company token on this agency.
    const other = await api.get(`/locations/${w.agency.locations[0]!.id}`, { token: w.companyToken });
    expect(other.status).toBe(429);
  });

  it("before the token is known nothing is counted: the answers carry the limits but no remaining counts", async () => {
    const noVersion = await listOwnAgency(undefined, { token: w.companyToken, version: null });
    expect(noVersion.status).toBe(400);
    const noToken = await listOwnAgency(undefined, {});
    expect(noToken.status).toBe(401);
    for (const result of [noVersion, noToken]) {
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBeNull();
    }
  });
});
