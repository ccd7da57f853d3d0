import { beforeAll, describe, expect, it } from "vitest";
import type { CreatedApp } from "@/lib/apps/registry";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { callRoute, installAndExchange, makeApp, type RouteResult } from "@/lib/testing/oauth";
import { startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";
import { GET as locationGET } from "../../locations/[locationId]/route";
import { GET } from "./route";

/**
 * /oauth/installedLocations under the API's rate limits: a call with the app's Company token,
 * counted in the bucket of the app per agency, after the token is verified and before its level,
 * scope and query. RATE_LIMIT_BURST is 3 here so that the limit is reached in a few calls.
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

function list(
  query = `companyId=${agency.company.id}`,
  headers: Record<string, string> = { authorization: `Bearer ${companyToken}`, version: VERSION },
): Promise<RouteResult> {
  return callRoute(GET, new Request(`http://localhost/oauth/installedLocations?${query}`, { headers }));
}

describe("GET /oauth/installedLocations is rate-limited like the API", () => {
  it("past RATE_LIMIT_BURST: 429 rate_limited with Retry-After; every answer has the headers", async () => {
    await startOfBurstWindow();
    for (let i = 1; i <= BURST; i++) {
      const result = await list();
      expect(result.status).toBe(200);
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBe(String(BURST - i));
      expect(result.headers.get("x-ratelimit-daily-remaining")).toMatch(/^\d+$/);
    }
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: "rate_limited",
      statusCode: 429,
      traceId: refused.headers.get("x-trace-id"),
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    // Before the query: a bad query is also 429 while the window lasts.
    expect((await list("companyId=x".repeat(100))).status).toBe(429);
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
    const noVersion = await list(undefined, { authorization: `Bearer ${companyToken}` });
    expect(noVersion.status).toBe(400);
    const noToken = await list(undefined, { version: VERSION });
    expect(noToken.status).toBe(401);
    for (const result of [noVersion, noToken]) {
      expect(result.headers.get("x-ratelimit-max")).toBe(String(BURST));
      expect(result.headers.get("x-ratelimit-remaining")).toBeNull();
    }
  });
});
