// Over 250 lines on purpose: the token endpoint's behaviour table (SPEC.md's 200 columns, request,
// client and grant errors) in the order the endpoint checks them, over one app and its installs.
import { decodeJwt } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Actor } from "@/lib/accounts/permissions";
import { json, noStore } from "@/lib/api/handler";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { noStoreRoute } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/revoke";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { type ApiAnswer, apiClient, expectError as expectApiError, readAnswer } from "@/lib/testing/api-client";
import type { TestAgency } from "@/lib/testing/fixtures";
import {
  agencyUserAndApp,
  clientForm,
  codeGrant,
  formRequest,
  install,
  makeApp,
  pkcePair,
  postCodeGrant,
  postRefreshGrant,
  refreshGrant,
  testRedirectUri,
} from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";
import { POST } from "./route";

// RFC 6749's endpoint, outside the versioned API: no Version.
const api = apiClient(apiRoutes, { version: null });

let agency: TestAgency;
let subUser: Actor;
let app: CreatedApp;
let otherApp: CreatedApp;

beforeAll(async () => {
  ({ agency, subUser, app } = await agencyUserAndApp(3));
  otherApp = await makeApp(agency.company.id);
});

const token = (
  form: Record<string, string | undefined>,
  basic?: { id: string; secret: string },
  authorization?: string,
) => api.post("/oauth/token", { form, basic, authorization });

const agencyInstall = (locationIds = [agency.locations[0]!.id, agency.locations[1]!.id], extra = {}, now?: Date) =>
  install(agency.owner, app.app.clientId, { level: "agency", locationIds }, extra, now);
const locationInstall = (extra = {}) =>
  install(subUser, app.app.clientId, { level: "location", locationId: agency.locations[0]!.id }, extra);

/** SPEC.md's error body, never stored, never with the client's secret. */
function expectTokenError(result: ApiAnswer, status: number, error: string, description?: RegExp) {
  expectApiError(result, status, error, description);
  expect(result.headers.get("cache-control")).toBe("no-store");
  // Never a secret in an error body.
  expect(result.text).not.toContain(app.clientSecret);
}

describe("200 response, SPEC.md's table", () => {
  /** The fields of both columns. */
  const tokenFields = [
    "access_token",
    "token_type",
    "expires_in",
    "refresh_token",
    "scope",
    "refreshTokenId",
    "userType",
    "companyId",
    "isBulkInstallation",
    "userId",
  ];

  it("Company column (authorization_code)", async () => {
    const chosen = [agency.locations[0]!.id, agency.locations[2]!.id];
    const { code } = await agencyInstall(chosen);
    const result = await postCodeGrant(api, app, code);
    expect(result.status).toBe(200);
    expect(result.headers.get("cache-control")).toBe("no-store");
    expect(result.headers.get("content-type")).toMatch(/^application\/json/);
    const body = result.body;
    expect(Object.keys(body).sort()).toEqual(
      [...tokenFields, "approvedLocations", "approveAllLocations", "installToFutureLocations"].sort(),
    );
    expect(decodeJwt(body.access_token as string).authClass).toBe("Company");
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(86399);
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(body.refresh_token).not.toContain(".");
    expect(body.scope).toBe("oauth.readonly oauth.write locations.readonly users.readonly");
    expect(typeof body.refreshTokenId).toBe("string");
    expect(body.userType).toBe("Company");
    expect(body.companyId).toBe(agency.company.id);
    expect(body).not.toHaveProperty("locationId");
    expect(body.isBulkInstallation).toBe(true);
    expect(body.userId).toBe(agency.owner.id);
    expect(body).not.toHaveProperty("traceId");
    expect([...(body.approvedLocations as string[])].sort()).toEqual([...chosen].sort());
    // Two of three sub-accounts: not all, so none created later (lib/oauth/future-installs.test.ts).
    expect(body.approveAllLocations).toBe(false);
    expect(body.installToFutureLocations).toBe(false);
  });

  it("Location column (authorization_code)", async () => {
    const { code } = await locationInstall();
    const result = await postCodeGrant(api, app, code, { user_type: "Location" });
    expect(result.status).toBe(200);
    const body = result.body;
    expect(Object.keys(body).sort()).toEqual([...tokenFields, "locationId"].sort());
    expect(decodeJwt(body.access_token as string).authClass).toBe("Location");
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(86399);
    expect(typeof body.refresh_token).toBe("string");
    expect(body.scope).toBe("locations.readonly users.readonly contacts.write");
    expect(typeof body.refreshTokenId).toBe("string");
    expect(body.userType).toBe("Location");
    expect(body.companyId).toBe(agency.company.id);
    expect(body.locationId).toBe(agency.locations[0]!.id);
    expect(body.isBulkInstallation).toBe(false);
    expect(body.userId).toBe(subUser.id);
    expect(body).not.toHaveProperty("traceId");
    expect(body).not.toHaveProperty("approvedLocations");
  });

  it("refresh_token grant answers with the same columns, a new refresh token and a new id", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const second = await postRefreshGrant(api, app, first.body.refresh_token as string);
    expect(second.status).toBe(200);
    expect(Object.keys(second.body).sort()).toEqual(Object.keys(first.body).sort());
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.body.refreshTokenId).not.toBe(first.body.refreshTokenId);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect(second.body).toMatchObject({ userType: "Company", isBulkInstallation: true, companyId: agency.company.id });

    const { code: locCode } = await locationInstall();
    const loc = await postCodeGrant(api, app, locCode, { user_type: "Location" });
    const locRefreshed = await postRefreshGrant(api, app, loc.body.refresh_token as string, { user_type: "Location" });
    expect(locRefreshed.status).toBe(200);
    expect(Object.keys(locRefreshed.body).sort()).toEqual(Object.keys(loc.body).sort());
    expect(locRefreshed.body).toMatchObject({ userType: "Location", locationId: agency.locations[0]!.id });
  });

  it("a token answer is private (no-store), so the direct router writes it uncompressed, even to a client that accepts gzip", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const request = formRequest("/oauth/token", refreshGrant(app, first.body.refresh_token as string), {
      "accept-encoding": "gzip, deflate",
    });
    const answer = await POST(request, undefined);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("HTTP Basic client authentication works as well as the form", async () => {
    const { code } = await agencyInstall();
    const result = await token(
      { grant_type: "authorization_code", code, user_type: "Company" },
      { id: app.app.clientId, secret: app.clientSecret },
    );
    expect(result.status).toBe(200);
  });

  it("a registered redirect_uri and a matching PKCE code_verifier are accepted", async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await agencyInstall(undefined, { code_challenge: challenge, code_challenge_method: "S256" });
    const result = await postCodeGrant(api, app, code, { redirect_uri: testRedirectUri, code_verifier: verifier });
    expect(result.status).toBe(200);
  });
});

describe("scopes follow the installation", () => {
  it("a code issued before a narrowing re-install gets only the scopes the installation grants now", async () => {
    const { code: wide } = await agencyInstall();
    const { code: narrow } = await agencyInstall(undefined, { scope: "oauth.readonly locations.readonly" });
    const early = await postCodeGrant(api, app, wide);
    expect(early.status).toBe(200);
    expect(early.body.scope).toBe("oauth.readonly locations.readonly");
    expect(decodeJwt(early.body.access_token as string).scope).toBe("oauth.readonly locations.readonly");
    // Its family stays narrow when it refreshes.
    expect((await postRefreshGrant(api, app, early.body.refresh_token as string)).body.scope).toBe(
      "oauth.readonly locations.readonly",
    );
    expect((await postCodeGrant(api, app, narrow)).body.scope).toBe("oauth.readonly locations.readonly");
  });
});

describe("request errors", () => {
  it("a body that is not form-encoded: 400 invalid_request that says so", async () => {
    const result = await api.post("/oauth/token", { json: { grant_type: "authorization_code" } });
    expectTokenError(result, 400, "invalid_request", /x-www-form-urlencoded/);
  });

  it("no content type at all: 400 invalid_request", async () => {
    const result = await api.post("/oauth/token", { body: "a=b" });
    expect(result.status).toBe(400);
  });

  it("a parameter sent twice: 400 invalid_request", async () => {
    const result = await api.post("/oauth/token", {
      contentType: "application/x-www-form-urlencoded",
      body: "grant_type=refresh_token&grant_type=authorization_code",
    });
    expectTokenError(result, 400, "invalid_request", /more than once/);
  });

  it("broken percent-encoding: 400 invalid_request", async () => {
    const result = await api.post("/oauth/token", {
      contentType: "application/x-www-form-urlencoded",
      body: "grant_type=%zz",
    });
    expectTokenError(result, 400, "invalid_request");
  });

  it.each([
    ["a huge client_id", { client_id: "x".repeat(5000) }, 401],
    ["a huge code", { code: "x".repeat(5000) }, 400],
    ["control characters", { code: "\u0000\u0001", user_type: "Company\u0000" }, 400],
  ])("%s: a 4xx, never a 5xx", async (_case, override, status) => {
    expect((await postCodeGrant(api, app, "x", override)).status).toBe(status);
  });

  it("a body that is not UTF-8 or too large: 4xx", async () => {
    const binary = await api.post("/oauth/token", {
      contentType: "application/x-www-form-urlencoded",
      body: new Uint8Array([0x67, 0x3d, 0xff, 0xfe]),
    });
    expect(binary.status).toBe(400);
    const huge = await token({ grant_type: "x".repeat(100_000) });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toBe("invalid_request");
  });

  it("Basic credentials with a broken percent-encoding: 401 invalid_client", async () => {
    const result = await token(
      { grant_type: "refresh_token", refresh_token: "x" },
      undefined,
      `Basic ${Buffer.from("%zz:%zz").toString("base64")}`,
    );
    expectTokenError(result, 401, "invalid_client");
  });

  it("GET: 400 invalid_request naming the method to use, with Allow", async () => {
    const result = await api.get("/oauth/token");
    expect(result.status).toBe(400);
    expect(result.headers.get("allow")).toBe("POST, OPTIONS");
    expect(result.body.error).toBe("invalid_request");
  });

  const missing: [string, Record<string, string | undefined>, RegExp][] = [
    ["grant_type", { grant_type: undefined }, /grant_type is required/],
    ["code", { code: undefined }, /code is required/],
  ];
  it.each(missing)("missing %s: 400 invalid_request naming it", async (_field, override, message) => {
    const result = await postCodeGrant(api, app, "some-code", override);
    expectTokenError(result, 400, "invalid_request", message);
  });

  const noClientAuth: [string, Record<string, string | undefined>, RegExp][] = [
    ["client_id", { client_id: undefined }, /client_id is required/],
    ["client_secret", { client_secret: undefined }, /client_secret is required/],
  ];
  it.each(noClientAuth)(
    "missing %s: 401 invalid_client naming it (RFC 6749 §5.2)",
    async (_field, override, message) => {
      const result = await postCodeGrant(api, app, "some-code", override);
      expectTokenError(result, 401, "invalid_client", message);
      expect(result.headers.get("www-authenticate")).toBeNull();
    },
  );

  it("an empty value counts as missing (RFC 6749 §3.2)", async () => {
    expectTokenError(await postCodeGrant(api, app, "", {}), 400, "invalid_request", /code is required/);
  });

  it("missing refresh_token: 400 invalid_request", async () => {
    expectTokenError(await postRefreshGrant(api, app, ""), 400, "invalid_request", /refresh_token is required/);
  });

  it("an unknown grant_type: 400 unsupported_grant_type", async () => {
    const result = await postCodeGrant(api, app, "x", { grant_type: "password" });
    expectTokenError(result, 400, "unsupported_grant_type", /authorization_code, refresh_token, client_credentials/);
  });

  it("an unknown user_type value: 400 invalid_grant (SPEC.md: else invalid_grant)", async () => {
    expectTokenError(
      await postCodeGrant(api, app, "x", { user_type: "Agency" }),
      400,
      "invalid_grant",
      /Company or Location/,
    );
  });

  it("a malformed code_verifier: 400 invalid_request", async () => {
    expectTokenError(
      await postCodeGrant(api, app, "x", { code_verifier: "short" }),
      400,
      "invalid_request",
      /code_verifier/,
    );
  });
});

describe("client authentication errors", () => {
  it("unknown client: 401 invalid_client, no Basic challenge when the form was used", async () => {
    const result = await postCodeGrant(api, app, "x", { client_id: "nope" });
    expectTokenError(result, 401, "invalid_client", /client_id/);
    expect(result.headers.get("www-authenticate")).toBeNull();
  });

  it("wrong secret in the form: 401 invalid_client", async () => {
    const result = await postCodeGrant(api, app, "x", { client_secret: "wrong" });
    expectTokenError(result, 401, "invalid_client", /client_secret/);
    expect(result.headers.get("www-authenticate")).toBeNull();
  });

  it("wrong secret with HTTP Basic: 401 invalid_client with WWW-Authenticate: Basic", async () => {
    const result = await token(
      { grant_type: "authorization_code", code: "x", user_type: "Company" },
      { id: app.app.clientId, secret: "wrong" },
    );
    expectTokenError(result, 401, "invalid_client");
    expect(result.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("unknown client with HTTP Basic: 401 with WWW-Authenticate: Basic", async () => {
    const result = await token(
      { grant_type: "authorization_code", code: "x", user_type: "Company" },
      { id: "nope", secret: "wrong" },
    );
    expectTokenError(result, 401, "invalid_client");
    expect(result.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("malformed Basic credentials: 401 with WWW-Authenticate: Basic", async () => {
    const result = await token(
      { grant_type: "authorization_code", code: "x", user_type: "Company" },
      undefined,
      "Basic !!!",
    );
    expectTokenError(result, 401, "invalid_client");
    expect(result.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("Basic and client_secret together: 400 invalid_request", async () => {
    const result = await token(
      { grant_type: "authorization_code", code: "x", user_type: "Company", client_secret: app.clientSecret },
      { id: app.app.clientId, secret: app.clientSecret },
    );
    expectTokenError(result, 400, "invalid_request", /one way/);
  });
});

describe("authorization_code grant errors", () => {
  it("an unknown code: 400 invalid_grant", async () => {
    expectTokenError(await postCodeGrant(api, app, "not-a-code"), 400, "invalid_grant", /not valid/);
  });

  it("an expired code (older than 10 minutes): invalid_grant", async () => {
    const { code } = await agencyInstall(undefined, {}, new Date(Date.now() - 11 * 60_000));
    expectTokenError(await postCodeGrant(api, app, code), 400, "invalid_grant", /expired/);
  });

  it("a code of another app: invalid_grant, and the code still works for its own app", async () => {
    const { code } = await agencyInstall();
    expectTokenError(await postCodeGrant(api, otherApp, code, {}), 400, "invalid_grant", /another app/);
    expect((await postCodeGrant(api, app, code)).status).toBe(200);
  });

  it("user_type left out (SPEC.md: optional): the installation's level, Company and Location", async () => {
    const { code } = await agencyInstall();
    const company = await postCodeGrant(api, app, code, { user_type: undefined });
    expect(company.status).toBe(200);
    expect(company.body).toMatchObject({ userType: "Company", isBulkInstallation: true });
    expect(decodeJwt(company.body.access_token as string).authClass).toBe("Company");
    const { code: locCode } = await locationInstall();
    const location = await postCodeGrant(api, app, locCode, { user_type: undefined });
    expect(location.status).toBe(200);
    expect(location.body).toMatchObject({ userType: "Location", locationId: agency.locations[0]!.id });
    expect(decodeJwt(location.body.access_token as string).authClass).toBe("Location");
  });

  it("user_type not matching the installation: invalid_grant", async () => {
    const { code } = await agencyInstall();
    expectTokenError(
      await postCodeGrant(api, app, code, { user_type: "Location" }),
      400,
      "invalid_grant",
      /user_type must be Company/,
    );
    const { code: locCode } = await locationInstall();
    expectTokenError(await postCodeGrant(api, app, locCode), 400, "invalid_grant", /user_type must be Location/);
  });

  it("a redirect_uri other than the code's: invalid_grant", async () => {
    const { code } = await agencyInstall();
    const result = await postCodeGrant(api, app, code, { redirect_uri: "http://localhost:4000/callback" });
    expectTokenError(result, 400, "invalid_grant", /redirect_uri/);
  });

  it("PKCE: a missing or wrong code_verifier, or one without a challenge: invalid_grant", async () => {
    const { challenge } = pkcePair();
    const { code } = await agencyInstall(undefined, { code_challenge: challenge, code_challenge_method: "S256" });
    expectTokenError(await postCodeGrant(api, app, code), 400, "invalid_grant", /code_verifier is required/);
    expectTokenError(
      await postCodeGrant(api, app, code, { code_verifier: pkcePair().verifier }),
      400,
      "invalid_grant",
      /does not match/,
    );
    const { code: plain } = await agencyInstall();
    expectTokenError(
      await postCodeGrant(api, app, plain, { code_verifier: pkcePair().verifier }),
      400,
      "invalid_grant",
      /without/,
    );
  });

  it("a replayed code fails and revokes every token issued from it", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    expect(first.status).toBe(200);
    const access = first.body.access_token as string;
    expect((await verifyAccessToken(access)).ok).toBe(true);
    expectTokenError(await postCodeGrant(api, app, code), 400, "invalid_grant", /already used/);
    expect(await verifyAccessToken(access)).toEqual({ ok: false, reason: "revoked" });
    expectTokenError(await postRefreshGrant(api, app, first.body.refresh_token as string), 400, "invalid_grant");
  });

  it("a code replayed after it expired still revokes every token issued from it", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    expect(first.status).toBe(200);
    const later = new Date(Date.now() + 11 * 60_000);
    const replay = tokenEndpoint(formRequest("/oauth/token", codeGrant(app, code, "Company")), later);
    await expect(replay).rejects.toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(/already used/),
    });
    expect(await verifyAccessToken(first.body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
  });

  it("a code of an app uninstalled since: invalid_grant", async () => {
    const { code, installationId } = await locationInstall();
    await uninstallApp({ installationId });
    expectTokenError(await postCodeGrant(api, app, code, { user_type: "Location" }), 400, "invalid_grant");
  });

  it("the code is stored only as a keyed hash", async () => {
    const { code, installationId } = await agencyInstall();
    const rows = await db().authorizationCode.findMany({ where: { installationId } });
    expect(rows.some((r) => r.codeHash.includes(code) || JSON.stringify(r).includes(code))).toBe(false);
  });
});

describe("refresh_token grant errors", () => {
  it("an unknown refresh token, another app's, or a wrong user_type: invalid_grant", async () => {
    expectTokenError(await postRefreshGrant(api, app, "nope"), 400, "invalid_grant", /not valid/);
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    expectTokenError(
      await postRefreshGrant(api, otherApp, first.body.refresh_token as string, {}),
      400,
      "invalid_grant",
      /another app/,
    );
    expectTokenError(
      await postRefreshGrant(api, app, first.body.refresh_token as string, { user_type: "Location" }),
      400,
      "invalid_grant",
      /user_type/,
    );
    expect(
      (await postRefreshGrant(api, app, first.body.refresh_token as string, { user_type: "Company" })).status,
    ).toBe(200);
  });

  it("a refresh token of an uninstalled app: invalid_grant", async () => {
    const { code, installationId } = await locationInstall();
    const first = await postCodeGrant(api, app, code, { user_type: "Location" });
    await uninstallApp({ installationId });
    expectTokenError(await postRefreshGrant(api, app, first.body.refresh_token as string), 400, "invalid_grant");
  });

  it("refresh tokens are stored only as keyed hashes", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const row = await db().refreshToken.findUniqueOrThrow({ where: { id: first.body.refreshTokenId as string } });
    expect(row.tokenHash).not.toContain(first.body.refresh_token as string);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(365 * 24 * 3_600_000);
  });
});

/** The route with its clock set to `now` (the handler is the route's own line, with `now` passed). */
async function tokenAt(now: Date, form: Record<string, string | undefined>): Promise<ApiAnswer> {
  const route = noStoreRoute(POST.declaration!, async (request) =>
    json(await tokenEndpoint(request, now), { headers: noStore }),
  );
  return readAnswer(await route(api.request("POST", "/oauth/token", { form })));
}

const refreshAt = (now: Date, refreshToken: string, client = app) => tokenAt(now, refreshGrant(client, refreshToken));

async function withReuseWindow(seconds: string, run: () => Promise<void>): Promise<void> {
  const before = process.env.REFRESH_TOKEN_REUSE_SECONDS;
  process.env.REFRESH_TOKEN_REUSE_SECONDS = seconds;
  resetEnvCache();
  try {
    await run();
  } finally {
    if (before === undefined) delete process.env.REFRESH_TOKEN_REUSE_SECONDS;
    else process.env.REFRESH_TOKEN_REUSE_SECONDS = before;
    resetEnvCache();
  }
}

/** Every refresh token of these answers belongs to one grant, and it is not revoked. */
async function expectOneLiveFamily(answers: Record<string, unknown>[]) {
  const ids = answers.map((a) => a.refreshTokenId as string);
  const rows = await db().refreshToken.findMany({
    where: { id: { in: ids } },
    select: { grantId: true, grant: { select: { revokedAt: true } } },
  });
  expect(rows).toHaveLength(ids.length);
  expect(new Set(rows.map((r) => r.grantId)).size).toBe(1);
  expect(rows[0]!.grant.revokedAt).toBeNull();
}

const second = 1000;

describe("refresh reuse window (REFRESH_TOKEN_REUSE_SECONDS, default 30)", () => {
  it("a used refresh token presented again inside the window: 200, a new working pair of the same family, nothing revoked", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const rotated = await postRefreshGrant(api, app, first.body.refresh_token as string);
    expect(rotated.status).toBe(200);
    const replay = await postRefreshGrant(api, app, first.body.refresh_token as string);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(replay.body).sort()).toEqual(Object.keys(rotated.body).sort());
    expect(replay.body.refresh_token).not.toBe(rotated.body.refresh_token);
    expect(replay.body.refreshTokenId).not.toBe(rotated.body.refreshTokenId);
    await expectOneLiveFamily([first.body, rotated.body, replay.body]);
    // Both pairs work: each access token, and each refresh token once.
    for (const pair of [first.body, rotated.body, replay.body]) {
      expect((await verifyAccessToken(pair.access_token as string)).ok).toBe(true);
    }
    expect((await postRefreshGrant(api, app, rotated.body.refresh_token as string)).status).toBe(200);
    expect((await postRefreshGrant(api, app, replay.body.refresh_token as string)).status).toBe(200);
  });

  it("the window runs from the first use: at 29.999 s a replay gets a pair, at 30 s it is reuse and revokes the whole family", async () => {
    const t0 = new Date(Date.now() - 120 * second);
    const { code } = await agencyInstall(undefined, {}, t0);
    const first = await tokenAt(t0, codeGrant(app, code, "Company"));
    const used = new Date(t0.getTime() + 5 * second);
    const rotated = await refreshAt(used, first.body.refresh_token as string);
    expect(rotated.status).toBe(200);
    const inside = await refreshAt(new Date(used.getTime() + 30 * second - 1), first.body.refresh_token as string);
    expect(inside.status).toBe(200);
    // A replay does not move the window: it still ends 30 s after the first use.
    const after = await refreshAt(new Date(used.getTime() + 30 * second), first.body.refresh_token as string);
    expectTokenError(after, 400, "invalid_grant", /already used/);
    for (const pair of [first.body, rotated.body, inside.body]) {
      expect(await verifyAccessToken(pair.access_token as string)).toEqual({ ok: false, reason: "revoked" });
    }
    expectTokenError(
      await postRefreshGrant(api, app, rotated.body.refresh_token as string),
      400,
      "invalid_grant",
      /revoked/,
    );
    expectTokenError(
      await postRefreshGrant(api, app, inside.body.refresh_token as string),
      400,
      "invalid_grant",
      /revoked/,
    );
  });

  it("a family revoked meanwhile stays revoked: a replay inside the window fails and issues nothing", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const rotated = await postRefreshGrant(api, app, first.body.refresh_token as string);
    await revokeToken(
      formRequest("/oauth/revoke", { ...clientForm(app), token: rotated.body.refresh_token as string }),
    );
    const before = await db().refreshToken.count({ where: { grantId: await grantOf(first.body) } });
    expectTokenError(
      await postRefreshGrant(api, app, first.body.refresh_token as string),
      400,
      "invalid_grant",
      /revoked/,
    );
    expect(await db().refreshToken.count({ where: { grantId: await grantOf(first.body) } })).toBe(before);
  });

  it("an uninstalled app's used token inside the window: invalid_grant", async () => {
    const { code, installationId } = await locationInstall();
    const first = await postCodeGrant(api, app, code, { user_type: "Location" });
    expect((await postRefreshGrant(api, app, first.body.refresh_token as string)).status).toBe(200);
    await uninstallApp({ installationId });
    expectTokenError(await postRefreshGrant(api, app, first.body.refresh_token as string), 400, "invalid_grant");
  });

  it("another app presenting a used token inside the window: invalid_grant naming it, and nothing is revoked", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const rotated = await postRefreshGrant(api, app, first.body.refresh_token as string);
    expectTokenError(
      await postRefreshGrant(api, otherApp, first.body.refresh_token as string, {}),
      400,
      "invalid_grant",
      /another app/,
    );
    expect((await verifyAccessToken(rotated.body.access_token as string)).ok).toBe(true);
    await expectOneLiveFamily([first.body, rotated.body]);
  });

  it("the window does not revive an expired refresh token (365 days), and the refusal revokes nothing", async () => {
    const yearMs = 365 * 24 * 3_600_000;
    const t0 = new Date(Date.now() - yearMs - 10 * second);
    const { code } = await agencyInstall(undefined, {}, t0);
    const first = await tokenAt(t0, codeGrant(app, code, "Company"));
    const expiry = t0.getTime() + yearMs;
    const rotated = await refreshAt(new Date(expiry - second), first.body.refresh_token as string);
    expect(rotated.status).toBe(200);
    const replay = await refreshAt(new Date(expiry), first.body.refresh_token as string);
    expectTokenError(replay, 400, "invalid_grant", /expired/);
    expect((await verifyAccessToken(rotated.body.access_token as string)).ok).toBe(true);
    expect((await postRefreshGrant(api, app, rotated.body.refresh_token as string)).status).toBe(200);
  });

  it("REFRESH_TOKEN_REUSE_SECONDS=0 (strict): the second presentation is reuse and revokes the whole family", async () => {
    await withReuseWindow("0", async () => {
      const { code } = await agencyInstall();
      const first = await postCodeGrant(api, app, code);
      const rotated = await postRefreshGrant(api, app, first.body.refresh_token as string);
      expect(rotated.status).toBe(200);
      expectTokenError(
        await postRefreshGrant(api, app, first.body.refresh_token as string),
        400,
        "invalid_grant",
        /already used/,
      );
      // The successor and its access token were revoked with the family.
      expect(await verifyAccessToken(rotated.body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
      expectTokenError(
        await postRefreshGrant(api, app, rotated.body.refresh_token as string),
        400,
        "invalid_grant",
        /revoked/,
      );
    });
  });
});

async function grantOf(answer: Record<string, unknown>): Promise<string> {
  const row = await db().refreshToken.findUniqueOrThrow({ where: { id: answer.refreshTokenId as string } });
  return row.grantId;
}

describe("concurrency", () => {
  it("20 simultaneous exchanges of one code give exactly one 200", async () => {
    const { code } = await agencyInstall();
    const results = await Promise.all(Array.from({ length: 20 }, () => postCodeGrant(api, app, code)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
    for (const r of results.filter((r) => r.status !== 200)) expect(r.body.error).toBe("invalid_grant");
  });

  it("20 simultaneous uses of one refresh token inside the reuse window: twenty 200s, one family, nothing revoked", async () => {
    const { code } = await agencyInstall();
    const first = await postCodeGrant(api, app, code);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => postRefreshGrant(api, app, first.body.refresh_token as string)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const pairs = results.map((r) => r.body);
    expect(new Set(pairs.map((p) => p.refresh_token)).size).toBe(20);
    await expectOneLiveFamily([first.body, ...pairs]);
    for (const pair of pairs) expect((await verifyAccessToken(pair.access_token as string)).ok).toBe(true);
  });

  it("REFRESH_TOKEN_REUSE_SECONDS=0: 20 simultaneous uses give exactly one 200, and the reuse revokes the family", async () => {
    await withReuseWindow("0", async () => {
      const { code } = await agencyInstall();
      const first = await postCodeGrant(api, app, code);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => postRefreshGrant(api, app, first.body.refresh_token as string)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(19);
      const winner = results.find((r) => r.status === 200)!;
      expect(await verifyAccessToken(winner.body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
    });
  });
});
