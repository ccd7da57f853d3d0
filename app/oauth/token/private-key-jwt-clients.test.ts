import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient, inProcessFetch } from "@/lib/testing/api-client";
import { addTestAppKey, type TestAppKey } from "@/lib/testing/app-keys";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp, pkcePair } from "@/lib/testing/oauth";

/**
 * Real OAuth clients, unchanged, authenticating with private_key_jwt (RFC 7523 §2.2) and asking for
 * installation tokens (grant_type=client_credentials, SPEC.md › Apps that never lose an install):
 * openid-client v6 configured by our RFC 8414 metadata, and oauth4webapi (the library under it),
 * each with an ES256 and an RS256 key. Their requests go to the route handlers in process, with
 * the headers and body the libraries build; the assertions are the libraries' own (`aud` the
 * issuer, their `jti`, the key's `kid` in the header).
 */

// The libraries' own requests: no Version, their headers and body as they send them.
const api = apiClient(apiRoutes, { version: null });

let agency: TestAgency;
let app: CreatedApp;
let issuer: URL;
const keys = {} as Record<"ES256" | "RS256", TestAppKey>;

beforeAll(async () => {
  agency = await makeAgency({ locations: 2 });
  app = await makeApp(agency.company.id);
  keys.ES256 = await addTestAppKey(app.app.id, "ES256");
  keys.RS256 = await addTestAppKey(app.app.id, "RS256");
  await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] });
  issuer = new URL((await api.get("/.well-known/oauth-authorization-server")).body.issuer as string);
});

describe.each(["ES256", "RS256"] as const)("with an %s key", (alg) => {
  const key = () => ({ key: keys[alg].privateKey, kid: keys[alg].kid });

  describe("openid-client v6 with client.PrivateKeyJwt", () => {
    const configuration = () =>
      client.discovery(issuer, app.app.clientId, undefined, client.PrivateKeyJwt(key()), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests],
        [client.customFetch]: inProcessFetch(api),
      });

    it("clientCredentialsGrant with companyId: a 1-hour Company token, no refresh token", async () => {
      const config = await configuration();
      const tokens = await client.clientCredentialsGrant(config, { companyId: agency.company.id });
      expect(tokens.token_type.toLowerCase()).toBe("bearer");
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens).toMatchObject({ userType: "Company", companyId: agency.company.id });
      expect(tokens.scope?.split(" ")).toContain("oauth.write");
    });

    it("clientCredentialsGrant with locationId: a Location token of the sub-account the install chose", async () => {
      const config = await configuration();
      const locationId = agency.locations[0]!.id;
      const tokens = await client.clientCredentialsGrant(config, { locationId });
      expect(tokens).toMatchObject({ userType: "Location", companyId: agency.company.id, locationId });
      expect(tokens.refresh_token).toBeUndefined();
      // It works on the API like any Location token of the installation.
      expect(
        (await api.get(`/locations/${locationId}`, { token: tokens.access_token, version: "2021-07-28" })).status,
      ).toBe(200);
    });

    it("a sub-account the app is not installed on: invalid_grant", async () => {
      const config = await configuration();
      await expect(
        client.clientCredentialsGrant(config, { locationId: agency.locations[1]!.id }),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    });

    it("exchanges a code and refreshes, introspects and revokes, each authenticated by an assertion", async () => {
      const config = await configuration();
      const { verifier, challenge } = pkcePair();
      const { redirectTo } = await install(
        agency.owner,
        app.app.clientId,
        { level: "agency", locationIds: [agency.locations[0]!.id] },
        { code_challenge: challenge, code_challenge_method: "S256" },
      );
      const tokens = await client.authorizationCodeGrant(config, new URL(redirectTo), {
        pkceCodeVerifier: verifier,
        expectedState: "st-123",
      });
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(refreshed.userType).toBe("Company");
      expect(refreshed.refresh_token).toBeDefined();
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

      const introspected = await client.tokenIntrospection(config, refreshed.access_token);
      expect(introspected).toMatchObject({
        active: true,
        client_id: app.app.clientId,
        authClass: "Company",
        companyId: agency.company.id,
      });

      await client.tokenRevocation(config, refreshed.refresh_token as string);
      expect(await client.tokenIntrospection(config, refreshed.refresh_token as string)).toMatchObject({
        active: false,
      });
      await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
        error: "invalid_grant",
      });
    });
  });

  describe("oauth4webapi with oauth.PrivateKeyJwt", () => {
    const options = { [oauth.customFetch]: inProcessFetch(api), [oauth.allowInsecureRequests]: true };
    let as: oauth.AuthorizationServer;
    const oauthClient = () => ({ client_id: app.app.clientId });

    beforeAll(async () => {
      as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...options }),
      );
    });

    it("clientCredentialsGrantRequest with companyId, then introspectionRequest of the token", async () => {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        oauthClient(),
        oauth.PrivateKeyJwt(key()),
        new URLSearchParams({ companyId: agency.company.id }),
        options,
      );
      const tokens = await oauth.processClientCredentialsResponse(as, oauthClient(), response);
      expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, userType: "Company" });
      expect(tokens.refresh_token).toBeUndefined();

      const introspection = await oauth.introspectionRequest(
        as,
        oauthClient(),
        oauth.PrivateKeyJwt(key()),
        tokens.access_token,
        options,
      );
      expect(await oauth.processIntrospectionResponse(as, oauthClient(), introspection)).toMatchObject({
        active: true,
        client_id: app.app.clientId,
        authClass: "Company",
        companyId: agency.company.id,
      });
    });

    it("clientCredentialsGrantRequest with locationId: a Location token", async () => {
      const locationId = agency.locations[0]!.id;
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        oauthClient(),
        oauth.PrivateKeyJwt(key()),
        new URLSearchParams({ locationId }),
        options,
      );
      expect(await oauth.processClientCredentialsResponse(as, oauthClient(), response)).toMatchObject({
        userType: "Location",
        locationId,
      });
    });
  });
});
