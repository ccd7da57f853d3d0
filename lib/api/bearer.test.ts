import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { databaseHandle } from "@/lib/db/client";
import { expireNow, rotateLater, updatePrivateIntegration } from "@/lib/integrations/lifecycle";
import { tokenHint } from "@/lib/integrations/token";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { apiClient, getLocation } from "@/lib/testing/api-client";
import { makeAgency, makeUser, subAccountOwner, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { codeGrant, formRequest, install, makeApp } from "@/lib/testing/oauth";
import { secondInstance } from "@/lib/testing/second-instance";
import { authenticateBearer, bearerToken } from "./bearer";

let A: TestAgency;
let locationId: string;

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  locationId = A.locations[0]!.id;
});

const api = apiClient(apiRoutes);

/** What authenticateBearer throws for `request`; fails the test when it accepts it. */
async function bearerRefusal(request: Request) {
  try {
    await authenticateBearer(request);
  } catch (error) {
    return error as { status: number; code: string; description: string; headers: Record<string, string> };
  }
  throw new Error("accepted");
}

describe("the Authorization header", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["absent", {}, /Send Authorization: Bearer <token>/],
    ["another scheme", { authorization: "Basic YTpi" }, /must be Bearer followed by one token/],
    ["two tokens", { authorization: "Bearer a b" }, /must be Bearer followed by one token/],
    ["an empty token", { authorization: "Bearer " }, /must be Bearer followed by one token/],
    ["garbage", { authorization: "Bearer ¿qué?" }, /neither an access token .* nor a private-integration token/],
    ["a pit- of the wrong shape", { authorization: "Bearer pit-1234" }, /is malformed/],
    [
      "a JWT not signed by us",
      { authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" },
      /access token is malformed|not issued by this server/,
    ],
    [
      "an unknown pit- token",
      { authorization: "Bearer pit-0123abcd-0123-4567-89ab-0123456789ab" },
      /not known: its integration may have been deleted/,
    ],
  ];
  for (const [name, headers, text] of cases) {
    it(`${name}: 401 invalid_token with an ASCII RFC 6750 challenge`, async () => {
      const error = await bearerRefusal(new Request("http://localhost/", { headers }));
      expect(error).toMatchObject({ status: 401, code: "invalid_token" });
      expect(error.description).toMatch(text);
      const challenge = error.headers["www-authenticate"]!;
      expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[\x20-\x7e]+"$/);
    });
  }

  it("the scheme is case-insensitive (RFC 7235 §2.1)", () => {
    expect(bearerToken(new Request("http://localhost/", { headers: { authorization: "bearer  abc " } }))).toBe("abc");
  });
});

describe("changes apply to the very next request (no verification cache)", () => {
  it("uninstalling the app: its Location token is refused at once", async () => {
    const app = await makeApp(A.company.id);
    const user = await makeUser(A.company.id, "account_user", { locationIds: [locationId] });
    const { code, installationId } = await install(user, app.app.clientId, { level: "location", locationId });
    const body = await tokenEndpoint(formRequest("/oauth/token", codeGrant(app, code, "Location")));
    const token = body.access_token as string;
    expect((await getLocation(api, token, locationId)).status).toBe(200);
    await uninstallApp({ installationId });
    const refused = await getLocation(api, token, locationId);
    expect(refused.status).toBe(401);
    expect(refused.body.error_description).toMatch(/revoked or the app was uninstalled/);
  });

  it("editing an integration's scopes applies at once; Expire Now stops the old token at once", async () => {
    const { token, integration } = await makeIntegration(A, { locationId, name: "Edit" });
    expect((await getLocation(api, token, locationId)).status).toBe(200);
    await updatePrivateIntegration(A.owner, subAccountOwner(locationId), integration.id, {
      name: "Edit",
      scopes: ["contacts.readonly"],
    });
    const narrowed = await getLocation(api, token, locationId);
    expect(narrowed.status).toBe(403);
    expect(narrowed.headers.get("www-authenticate")).toContain('scope="locations.readonly"');
    await updatePrivateIntegration(A.owner, subAccountOwner(locationId), integration.id, {
      name: "Edit",
      scopes: ["locations.readonly"],
    });
    const rotated = await rotateLater(A.owner, subAccountOwner(locationId), integration.id);
    expect((await getLocation(api, token, locationId)).status).toBe(200);
    expect((await getLocation(api, rotated.token, locationId)).status).toBe(200);
    await expireNow(A.owner, subAccountOwner(locationId), integration.id);
    expect((await getLocation(api, token, locationId)).status).toBe(401);
    expect((await getLocation(api, rotated.token, locationId)).status).toBe(200);
  });
});

// Another PrismaClient with its own pool stands in for a second instance sharing PostgreSQL.
describe.runIf(databaseHandle().kind === "postgresql")("a revocation made by another instance", () => {
  const other = secondInstance();

  it("is refused by this instance's next request, measured in milliseconds", async () => {
    const { token } = await makeIntegration(A, { locationId, name: "Remote" });
    expect((await getLocation(api, token, locationId)).status).toBe(200);
    // What rotateNow does to the old token, committed through the other instance's connection.
    await other().privateIntegrationToken.updateMany({
      where: { hint: tokenHint(token), integration: { locationId } },
      data: { slot: null, revokedAt: new Date() },
    });
    const committed = performance.now();
    // SPEC.md: refused within one second by every other instance. This instance may hold the token
    // in its verification cache until the NOTIFY of the commit arrives (milliseconds).
    let refused = await getLocation(api, token, locationId);
    while (refused.status === 200 && performance.now() - committed < 1000)
      refused = await getLocation(api, token, locationId);
    const elapsed = performance.now() - committed;
    expect(refused.status).toBe(401);
    expect(elapsed).toBeLessThan(1000);
  });
});
