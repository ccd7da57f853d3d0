import { beforeAll, describe, expect, it } from "vitest";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { callRoute, formRequest, installAndExchange, makeApp, type RouteResult } from "@/lib/testing/oauth";
import { startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";
import { GET as locationGET } from "../../locations/[locationId]/route";
import { POST } from "./route";

/**
 * /oauth/locationToken under the API's rate limits (issue 15, point 4): each exchange writes a
 * grant, a refresh token and an access token, so it is counted like an API call, in the bucket of
 * the app per agency, after the token is verified and before its level, scope and body.
 * RATE_LIMIT_BURST is 3 here so that the limit is reached in a few calls.
 */

const BURST = 3;
const VERSION = "2021-07-28";
let agency: TestAgency;
let app: CreatedApp;
let companyToken: string;

withBurstLimit(BURST);

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
  companyToken = (
    await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[0]!.id] })
  ).access_token;
});

const form = () => ({ companyId: agency.company.id, locationId: agency.locations[0]!.id });

function exchange(
  body: Record<string, string | undefined> = form(),
  headers: Record<string, string> = { authorization: `Bearer ${companyToken}`, version: VERSION },
): Promise<RouteResult> {
  return callRoute(POST, formRequest("/oauth/locationToken", body, headers));
}

const grantsOfApp = () => db().tokenGrant.count({ where: { appId: app.app.id } });

describe("POST /oauth/locationToken is rate-limited like the API", () => {
  it("past RATE_LIMIT_BURST: 429 rate_limited with Retry-After, writing nothing; every answer has the headers", async () => {
    await startOfBurstWindow();
    for (let i = 1; i <= BURST; i++) {
      const result = await exchange();
      expect(result.status).toBe(200);
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBe(String(BURST - i));
      expect(result.headers.get("x-ratelimit-interval-milliseconds")).toBe("10000");
      expect(result.headers.get("x-ratelimit-limit-daily")).toBe("200000");
      expect(result.headers.get("x-ratelimit-daily-remaining")).toMatch(/^\d+$/);
    }
    const grants = await grantsOfApp();
    const refused = await exchange();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: "rate_limited",
      statusCode: 429,
      traceId: refused.headers.get("x-trace-id"),
    });
    expect(refused.body.error_description).toMatch(/3 requests per 10 seconds.*Retry after \d+ seconds/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await grantsOfApp()).toBe(grants);

    // Before the body: a bad body is also 429 while the window lasts.
    expect((await exchange({})).status).toBe(429);
    // The same bucket as the app's other calls with its Company token on this agency.
    const api = await locationGET(
      new Request(`http://localhost/locations/${agency.locations[0]!.id}`, {
        headers: { authorization: `Bearer ${companyToken}`, version: VERSION },
      }),
      { params: Promise.resolve({ locationId: agency.locations[0]!.id }) },
    );
    expect(api.status).toBe(429);
  });

  it("before the token is known nothing is counted: the answers carry the limits but no remaining counts", async () => {
    const noVersion = await exchange(form(), { authorization: `Bearer ${companyToken}` });
    expect(noVersion.status).toBe(400);
    const noToken = await exchange(form(), { version: VERSION });
    expect(noToken.status).toBe(401);
    const privateIntegration = await exchange(form(), {
      authorization: "Bearer pit-0123abcd-0123-4567-89ab-0123456789ab",
      version: VERSION,
    });
    expect(privateIntegration.status).toBe(403);
    for (const result of [noVersion, noToken, privateIntegration]) {
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBeNull();
    }
  });

  it("another app on the same agency has its own bucket", async () => {
    await startOfBurstWindow();
    const other = await makeApp(agency.company.id);
    const token = (
      await installAndExchange(agency.owner, other, { level: "agency", locationIds: [agency.locations[0]!.id] })
    ).access_token;
    const result = await exchange(form(), { authorization: `Bearer ${token}`, version: VERSION });
    expect(result.status).toBe(200);
    expect(result.headers.get("x-ratelimit-remaining")).toBe(String(BURST - 1));
  });
});
