import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { db } from "@/lib/db/client";
import { type ApiRequest, apiClient } from "@/lib/testing/api-client";
import { installAndExchange, makeApp, withAgencyApp } from "@/lib/testing/oauth";
import { expectCounted, expectRateLimited, startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";

/**
 * /oauth/locationToken under the API's rate limits: each exchange writes a
 * grant, a refresh token and an access token, so it is counted like an API call, in the bucket of
 * the app per agency, after the token is verified and before its level, scope and body.
 * RATE_LIMIT_BURST is 3 here so that the limit is reached in a few calls.
 */

const BURST = 3;
withBurstLimit(BURST);
const api = apiClient(apiRoutes);
const w = withAgencyApp(1);

const firstSubAccount = () => ({ companyId: w.agency.company.id, locationId: w.agency.locations[0]!.id });

/** POST /oauth/locationToken for the agency's first sub-account, with the Company token unless `request` says otherwise. */
const exchangeFirstSubAccount = (
  body: Record<string, string | undefined> = firstSubAccount(),
  request: ApiRequest = { token: w.companyToken },
) => api.post("/oauth/locationToken", { form: body, ...request });

const grantsOfApp = () => db().tokenGrant.count({ where: { appId: w.app.app.id } });

describe("POST /oauth/locationToken is rate-limited like the API", () => {
  it("past RATE_LIMIT_BURST: 429 rate_limited with Retry-After, writing nothing; every answer has the headers", async () => {
    await startOfBurstWindow();
    for (let i = 1; i <= BURST; i++) {
      const result = await exchangeFirstSubAccount();
      expectCounted(result, BURST, BURST - i);
      expect(result.headers.get("x-ratelimit-interval-milliseconds")).toBe("10000");
      expect(result.headers.get("x-ratelimit-limit-daily")).toBe("200000");
    }
    const grants = await grantsOfApp();
    const refused = await exchangeFirstSubAccount();
    expectRateLimited(refused);
    expect(refused.body.error_description).toMatch(/3 requests per 10 seconds.*Retry after \d+ seconds/);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await grantsOfApp()).toBe(grants);

    // Before the body: a bad body is also 429 while the window lasts.
    expect((await exchangeFirstSubAccount({})).status).toBe(429);
    // The same bucket as the app's other calls with its Company token on this agency.
    const other = await api.get(`/locations/${w.agency.locations[0]!.id}`, { token: w.companyToken });
    expect(other.status).toBe(429);
  });

  it("before the token is known nothing is counted: the answers carry the limits but no remaining counts", async () => {
    const noVersion = await exchangeFirstSubAccount(firstSubAccount(), { token: w.companyToken, version: null });
    expect(noVersion.status).toBe(400);
    const noToken = await exchangeFirstSubAccount(firstSubAccount(), {});
    expect(noToken.status).toBe(401);
    const privateIntegration = await exchangeFirstSubAccount(firstSubAccount(), {
      token: "pit-0123abcd-0123-4567-89ab-0123456789ab",
    });
    expect(privateIntegration.status).toBe(403);
    for (const result of [noVersion, noToken, privateIntegration]) {
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBeNull();
    }
  });

  it("another app on the same agency has its own bucket", async () => {
    await startOfBurstWindow();
    const other = await makeApp(w.agency.company.id);
    const token = (
      await installAndExchange(w.agency.owner, other, { level: "agency", locationIds: [w.agency.locations[0]!.id] })
    ).access_token;
    const result = await exchangeFirstSubAccount(firstSubAccount(), { token });
    expect(result.status).toBe(200);
    expect(result.headers.get("x-ratelimit-remaining")).toBe(String(BURST - 1));
  });
});
