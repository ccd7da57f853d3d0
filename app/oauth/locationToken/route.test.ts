// Over 250 lines on purpose: SPEC.md's rows for POST /oauth/locationToken (answers, errors in check
// order, and every path that revokes the Company grant) share one installed app and its Company
// tokens.
import { decodeJwt } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { apiClient, expectBearerError } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import {
  agencyWithApp,
  clientForm,
  codeGrant,
  formRequest,
  install,
  installAndExchange,
  makeApp,
  refreshGrant,
} from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";

const api = apiClient(apiRoutes);

let agency: TestAgency;
let otherAgency: TestAgency;
let app: CreatedApp;
let companyToken: string;
let companyRefresh: string;

beforeAll(async () => {
  ({ agency, app, companyToken, refreshToken: companyRefresh } = await agencyWithApp(3, [0, 1]));
  otherAgency = await makeAgency({ locations: 1 });
});

/** POST /oauth/locationToken with the installed app's Company token, unless `bearer` names another (null: none). */
const exchangeAsCompany = (
  form: Record<string, string | undefined>,
  options: { bearer?: string | null; version?: string | null } = {},
) =>
  api.post("/oauth/locationToken", {
    form,
    token: options.bearer === undefined ? companyToken : options.bearer,
    version: options.version,
  });

const forLocation = (index = 0) => ({ companyId: agency.company.id, locationId: agency.locations[index]!.id });

/** SPEC.md's error body, and a Bearer challenge naming the error on a 401 or 403. */

describe("POST /oauth/locationToken", () => {
  it("exchanges a Company token for a Location token with SPEC.md's fields", async () => {
    const result = await exchangeAsCompany(forLocation(0));
    expect(result.status).toBe(200);
    expect(result.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(result.body).sort()).toEqual(
      [
        "access_token",
        "token_type",
        "expires_in",
        "refresh_token",
        "scope",
        "userType",
        "companyId",
        "locationId",
        "userId",
        "traceId",
      ].sort(),
    );
    expect(result.body).toMatchObject({
      token_type: "Bearer",
      expires_in: 86399,
      userType: "Location",
      companyId: agency.company.id,
      locationId: agency.locations[0]!.id,
      userId: agency.owner.id,
      traceId: result.headers.get("x-trace-id"),
      // The installation's granted scopes that apply at sub-account level, unlike the Company token's.
      scope: "locations.readonly users.readonly contacts.write",
    });
    expect(result.body).not.toHaveProperty("refreshTokenId");
    expect(result.body).not.toHaveProperty("isBulkInstallation");
    const claims = decodeJwt(result.body.access_token as string);
    expect(claims).toMatchObject({ authClass: "Location", locationId: agency.locations[0]!.id });
    const verified = await verifyAccessToken(result.body.access_token as string);
    expect(verified.ok && verified.principal.locationId).toBe(agency.locations[0]!.id);
  });

  it("its refresh token works at /oauth/token and answers in the Location shape", async () => {
    const result = await exchangeAsCompany(forLocation(1));
    const refreshed = await api.post("/oauth/token", { form: refreshGrant(app, result.body.refresh_token) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({
      userType: "Location",
      locationId: agency.locations[1]!.id,
      isBulkInstallation: false,
    });
  });

  it("without Version: 400 invalid_version", async () => {
    expectBearerError(
      await exchangeAsCompany(forLocation(), { version: null }),
      400,
      "invalid_version",
      /Version header/,
    );
    expectBearerError(await exchangeAsCompany(forLocation(), { version: "2020-01-01" }), 400, "invalid_version");
  });

  it("without a Bearer token, or a bad one: 401 invalid_token", async () => {
    expectBearerError(await exchangeAsCompany(forLocation(), { bearer: null }), 401, "invalid_token", /Bearer/);
    expectBearerError(await exchangeAsCompany(forLocation(), { bearer: "a.b.c" }), 401, "invalid_token");
  });

  it("with a Location token: 403 forbidden", async () => {
    const location = await exchangeAsCompany(forLocation(0));
    const result = await exchangeAsCompany(forLocation(0), { bearer: location.body.access_token as string });
    expectBearerError(result, 403, "forbidden", /Location token/);
  });

  it("with a private-integration token: 403 forbidden", async () => {
    const result = await exchangeAsCompany(forLocation(0), { bearer: "pit-0123abcd-0123-4567-89ab-0123456789ab" });
    expectBearerError(result, 403, "forbidden", /Private-integration/);
  });

  it("with a token of another agency: 403 forbidden", async () => {
    const result = await exchangeAsCompany({
      companyId: otherAgency.company.id,
      locationId: otherAgency.locations[0]!.id,
    });
    expectBearerError(result, 403, "forbidden", /companyId/);
  });

  it("for a sub-account of another agency: 403 forbidden", async () => {
    const result = await exchangeAsCompany({ companyId: agency.company.id, locationId: otherAgency.locations[0]!.id });
    expectBearerError(result, 403, "forbidden", /not a sub-account of this agency/);
    expectBearerError(
      await exchangeAsCompany({ companyId: agency.company.id, locationId: "no-such-location" }),
      403,
      "forbidden",
      /not a sub-account of this agency/,
    );
  });

  it("for a sub-account the app is not installed on: 403 forbidden naming the reason", async () => {
    expectBearerError(await exchangeAsCompany(forLocation(2)), 403, "forbidden", /not installed on this sub-account/);
  });

  it("without oauth.write: 403 insufficient_scope with scope=", async () => {
    const narrow = await makeApp(agency.company.id, { scopes: ["oauth.readonly", "contacts.write"] });
    const tokens = await installAndExchange(agency.owner, narrow, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const result = await exchangeAsCompany(forLocation(0), { bearer: tokens.access_token });
    expectBearerError(result, 403, "insufficient_scope", /oauth\.write/);
    expect(result.headers.get("www-authenticate")).toContain('scope="oauth.write"');
  });

  it("missing companyId or locationId: 400 invalid_request", async () => {
    expectBearerError(
      await exchangeAsCompany({ locationId: agency.locations[0]!.id }),
      400,
      "invalid_request",
      /companyId/,
    );
    expectBearerError(await exchangeAsCompany({ companyId: agency.company.id }), 400, "invalid_request", /locationId/);
  });

  it("a JSON body: 400 invalid_request", async () => {
    const result = await api.post("/oauth/locationToken", { token: companyToken, json: forLocation() });
    expectBearerError(result, 400, "invalid_request", /x-www-form-urlencoded/);
  });

  it("GET: 400 invalid_request with Allow", async () => {
    expect((await api.get("/oauth/locationToken", { version: null })).status).toBe(400);
  });

  it("Location tokens die with the Company grant's family and with the uninstall", async () => {
    const location = await exchangeAsCompany(forLocation(0));
    const token = location.body.access_token as string;
    expect((await verifyAccessToken(token)).ok).toBe(true);
    // Reusing the Company refresh token after rotation revokes the family, children included.
    expect((await api.post("/oauth/token", { form: refreshGrant(app, companyRefresh) })).status).toBe(200);
    // After REFRESH_TOKEN_REUSE_SECONDS (inside it, a replay gets a pair and revokes nothing).
    const afterWindow = new Date(Date.now() + 301_000);
    const replay = formRequest("/oauth/token", refreshGrant(app, companyRefresh));
    await expect(tokenEndpoint(replay, afterWindow)).rejects.toMatchObject({ code: "invalid_grant" });
    expect(await verifyAccessToken(token)).toEqual({ ok: false, reason: "revoked" });

    const fresh = await installAndExchange(agency.owner, app, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const loc = await exchangeAsCompany(forLocation(0), { bearer: fresh.access_token });
    expect(loc.status).toBe(200);
    const verified = await verifyAccessToken(fresh.access_token);
    expect(verified.ok).toBe(true);
    const { db } = await import("@/lib/db/client");
    const row = await db().accessToken.findUniqueOrThrow({
      where: { jti: decodeJwt(fresh.access_token).jti! },
      select: { grant: { select: { installationId: true } } },
    });
    await uninstallApp({ installationId: row.grant.installationId });
    expect(await verifyAccessToken(loc.body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
    expect(await verifyAccessToken(fresh.access_token)).toEqual({ ok: false, reason: "revoked" });
  });

  it("dropping a sub-account on re-install revokes its Location tokens", async () => {
    const fresh = await installAndExchange(agency.owner, app, {
      level: "agency",
      locationIds: [agency.locations[0]!.id, agency.locations[1]!.id],
    });
    const loc1 = await exchangeAsCompany(forLocation(1), { bearer: fresh.access_token });
    expect((await verifyAccessToken(loc1.body.access_token as string)).ok).toBe(true);
    await installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[0]!.id] });
    expect(await verifyAccessToken(loc1.body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
  });
});

describe("every path that revokes a Company grant takes its Location tokens down at once", () => {
  const tokenCall = (form: Record<string, string | undefined>) => api.post("/oauth/token", { form });

  /** A fresh agency install, its code, and a Location token exchanged from it, verified once (so cached). */
  async function companyWithChild() {
    const { code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id, agency.locations[1]!.id],
    });
    const company = await tokenCall(codeGrant(app, code, "Company"));
    expect(company.status).toBe(200);
    const child = await exchangeAsCompany(forLocation(0), { bearer: company.body.access_token as string });
    expect(child.status).toBe(200);
    expect((await verifyAccessToken(child.body.access_token as string)).ok).toBe(true);
    return { code, company: company.body, child: child.body };
  }

  async function expectChildDead(child: Record<string, unknown>) {
    expect(await verifyAccessToken(child.access_token as string)).toEqual({ ok: false, reason: "revoked" });
    const refreshed = await tokenCall(refreshGrant(app, child.refresh_token as string));
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
  }

  it("the authorization code presented again (RFC 6749 §4.1.2)", async () => {
    const { code, child } = await companyWithChild();
    const replay = await tokenCall(codeGrant(app, code, "Company"));
    expect(replay.status).toBe(400);
    await expectChildDead(child);
  });

  it("the Company refresh token revoked at /oauth/revoke (RFC 7009)", async () => {
    const { company, child } = await companyWithChild();
    const revoked = await api.post("/oauth/revoke", {
      form: { token: company.refresh_token as string, ...clientForm(app) },
    });
    expect(revoked.status).toBe(200);
    await expectChildDead(child);
  });
});
