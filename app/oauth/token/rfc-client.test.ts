import * as client from "openid-client";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Actor } from "@/lib/accounts/permissions";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient, inProcessFetch } from "@/lib/testing/api-client";
import type { TestAgency } from "@/lib/testing/fixtures";
import { agencyUserAndApp, install, pkcePair } from "@/lib/testing/oauth";

/**
 * A standards-only OAuth client (openid-client, configured by our RFC 8414 metadata) sends only
 * RFC 6749's parameters: no user_type. SPEC.md makes it optional, so the code exchange and the
 * refresh work unchanged for both installation levels. The library's requests go to the route
 * handlers in process (no server to start).
 */

// The library's own requests: no Version, its headers and body as it sends them.
const api = apiClient(apiRoutes, { version: null });

let agency: TestAgency;
let subUser: Actor;
let app: CreatedApp;

beforeAll(async () => {
  ({ agency, subUser, app } = await agencyUserAndApp(2));
});

async function rfcClient(): Promise<client.Configuration> {
  const issuer = new URL((await api.get("/.well-known/oauth-authorization-server")).body.issuer as string);
  return client.discovery(issuer, app.app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret), {
    algorithm: "oauth2",
    execute: [client.allowInsecureRequests],
    [client.customFetch]: inProcessFetch(api),
  });
}

describe("an RFC 6749 client that never sends user_type (SPEC.md, POST /oauth/token)", () => {
  it.each([
    ["agency", "Company"],
    ["location", "Location"],
  ] as const)("exchanges a code of an %s install and refreshes: a %s token", async (level, userType) => {
    const config = await rfcClient();
    const { verifier, challenge } = pkcePair();
    const actor = level === "agency" ? agency.owner : subUser;
    const target =
      level === "agency"
        ? { level, locationIds: [agency.locations[0]!.id] }
        : { level, locationId: agency.locations[0]!.id };
    const { redirectTo } = await install(actor, app.app.clientId, target, {
      code_challenge: challenge,
      code_challenge_method: "S256",
    });

    const tokens = await client.authorizationCodeGrant(config, new URL(redirectTo), {
      pkceCodeVerifier: verifier,
      expectedState: "st-123",
    });
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.userType).toBe(userType);
    expect(tokens.companyId).toBe(agency.company.id);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.userType).toBe(userType);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it("a user_type that is sent must still match the installation: invalid_grant", async () => {
    const config = await rfcClient();
    const { redirectTo } = await install(subUser, app.app.clientId, {
      level: "location",
      locationId: agency.locations[0]!.id,
    });
    await expect(
      client.authorizationCodeGrant(config, new URL(redirectTo), { expectedState: "st-123" }, { user_type: "Company" }),
    ).rejects.toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringMatching(/user_type must be Location/),
    });
  });
});
