import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { agencyWithApp, installAndExchange, makeApp } from "@/lib/testing/oauth";

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;
let companyToken: string;

beforeAll(async () => {
  ({ agency, app, companyToken } = await agencyWithApp(3, [0, 2]));
});

/** GET /oauth/installedLocations?`query` with the installed app's Company token unless `token` says otherwise. */
const listInstalled = (query: string, token: string | null = companyToken, version?: string | null) =>
  api.get(`/oauth/installedLocations?${query}`, { token, version });

describe("GET /oauth/installedLocations", () => {
  it("lists the sub-accounts the app is installed on", async () => {
    const result = await listInstalled(`companyId=${agency.company.id}`);
    expect(result.status).toBe(200);
    expect(result.body.count).toBe(2);
    const ids = (result.body.locations as { id: string; name: string; isInstalled: boolean }[]).map((l) => l.id);
    expect(ids.sort()).toEqual([agency.locations[0]!.id, agency.locations[2]!.id].sort());
    expect(result.body.traceId).toBe(result.headers.get("x-trace-id"));
  });

  it("needs Version, a Company token with oauth.readonly, and the token's own companyId", async () => {
    expect((await listInstalled(`companyId=${agency.company.id}`, companyToken, null)).body.error).toBe(
      "invalid_version",
    );
    expect((await listInstalled(`companyId=${agency.company.id}`, null)).status).toBe(401);
    const other = await makeAgency({ locations: 1 });
    const wrong = await listInstalled(`companyId=${other.company.id}`);
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe("forbidden");
    const missing = await listInstalled("");
    expect(missing.status).toBe(400);
    expect(missing.body.error_description).toMatch(/companyId is required/);
    const dup = await listInstalled(`companyId=${agency.company.id}&companyId=x`);
    expect(dup.status).toBe(400);
  });

  it("refuses a Location token (403) and a token without oauth.readonly (403 insufficient_scope)", async () => {
    const subUser = await makeUser(agency.company.id, "account_user", { locationIds: [agency.locations[1]!.id] });
    const loc = await installAndExchange(subUser, app, { level: "location", locationId: agency.locations[1]!.id });
    const result = await listInstalled(`companyId=${agency.company.id}`, loc.access_token);
    expect(result.status).toBe(403);
    expect(result.body.error).toBe("forbidden");

    const narrow = await makeApp(agency.company.id, { scopes: ["oauth.write"] });
    const tokens = await installAndExchange(agency.owner, narrow, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const denied = await listInstalled(`companyId=${agency.company.id}`, tokens.access_token);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("insufficient_scope");
    expect(denied.headers.get("www-authenticate")).toContain('scope="oauth.readonly"');
  });
});
