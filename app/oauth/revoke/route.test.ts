import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";

const api = apiClient(apiRoutes);

let agency: TestAgency;
let app: CreatedApp;
let otherApp: CreatedApp;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
  otherApp = await makeApp(agency.company.id);
});

const issue = () => installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[0]!.id] });
const postRevoke = (token: string, client = app, extra: Record<string, string> = {}) =>
  api.post("/oauth/revoke", {
    form: { token, client_id: client.app.clientId, client_secret: client.clientSecret, ...extra },
  });
const introspect = (token: string, client = app, secret = client.clientSecret) =>
  api.post("/oauth/introspect", { form: { token }, basic: { id: client.app.clientId, secret } });

describe("POST /oauth/revoke (RFC 7009)", () => {
  it("revokes one access token; the refresh token keeps working", async () => {
    const tokens = await issue();
    const result = await postRevoke(tokens.access_token, app, { token_type_hint: "access_token" });
    expect(result.status).toBe(200);
    expect(result.text).toBe("");
    expect(result.headers.get("cache-control")).toBe("no-store");
    expect(await verifyAccessToken(tokens.access_token)).toEqual({ ok: false, reason: "revoked" });
    const refreshed = await api.post("/oauth/token", {
      form: {
        grant_type: "refresh_token",
        client_id: app.app.clientId,
        client_secret: app.clientSecret,
        refresh_token: tokens.refresh_token,
      },
    });
    expect(refreshed.status).toBe(200);
  });

  it("revoking a refresh token revokes its grant, access tokens included", async () => {
    const tokens = await issue();
    expect((await postRevoke(tokens.refresh_token)).status).toBe(200);
    expect(await verifyAccessToken(tokens.access_token)).toEqual({ ok: false, reason: "revoked" });
    expect((await introspect(tokens.refresh_token)).body).toEqual({ active: false });
  });

  it("an unknown or already revoked token is a 200 (§2.2)", async () => {
    expect((await postRevoke("nope")).status).toBe(200);
    expect((await postRevoke("a.b.c")).status).toBe(200);
    const tokens = await issue();
    expect((await postRevoke(tokens.access_token)).status).toBe(200);
    expect((await postRevoke(tokens.access_token)).status).toBe(200);
  });

  it("another app's token is refused and stays valid", async () => {
    const tokens = await issue();
    const result = await postRevoke(tokens.access_token, otherApp);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe("unauthorized_client");
    expect((await verifyAccessToken(tokens.access_token)).ok).toBe(true);
  });

  it("needs client authentication and a token", async () => {
    const tokens = await issue();
    const noAuth = await api.post("/oauth/revoke", { form: { token: tokens.access_token } });
    expect(noAuth.status).toBe(401);
    expect(noAuth.body.error).toBe("invalid_client");
    const wrong = await api.post("/oauth/revoke", {
      form: { token: tokens.access_token, client_id: app.app.clientId, client_secret: "x" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    const noToken = await postRevoke("");
    expect(noToken.status).toBe(400);
    expect(noToken.body.error_description).toMatch(/token is required/);
    const badHint = await postRevoke(tokens.access_token, app, { token_type_hint: "id_token" });
    expect(badHint.status).toBe(400);
  });
});

describe("POST /oauth/introspect (RFC 7662)", () => {
  it("describes a live access token and a live refresh token", async () => {
    const tokens = await issue();
    const access = await introspect(tokens.access_token);
    expect(access.status).toBe(200);
    expect(access.headers.get("cache-control")).toBe("no-store");
    expect(access.body).toMatchObject({
      active: true,
      token_type: "Bearer",
      client_id: app.app.clientId,
      sub: agency.owner.id,
      authClass: "Company",
      companyId: agency.company.id,
      scope: tokens.scope,
    });
    expect(typeof access.body.exp).toBe("number");
    const refresh = await introspect(tokens.refresh_token);
    expect(refresh.body).toMatchObject({
      active: true,
      token_type: "refresh_token",
      client_id: app.app.clientId,
      companyId: agency.company.id,
    });
  });

  it("says only active:false for dead tokens, junk, and other apps' tokens", async () => {
    const tokens = await issue();
    expect((await introspect(tokens.access_token, otherApp)).body).toEqual({ active: false });
    expect((await introspect(tokens.refresh_token, otherApp)).body).toEqual({ active: false });
    expect((await introspect("junk")).body).toEqual({ active: false });
    await postRevoke(tokens.access_token);
    expect((await introspect(tokens.access_token)).body).toEqual({ active: false });
  });

  it("needs client authentication", async () => {
    const result = await introspect("x", app, "wrong");
    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toMatch(/^Basic /);
  });
});
