// Over 250 lines on purpose: one test per refusal SPEC.md implies for private_key_jwt, sharing one agency, app and keys.
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { databaseHandle, db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { apiClient, expectError } from "@/lib/testing/api-client";
import {
  addTestAppKey,
  assertionFields,
  clientAssertion,
  publicKeyAsHmacSecret,
  type TestAppKey,
  unsignedJwt,
} from "@/lib/testing/app-keys";
import { writerElsewhere } from "@/lib/testing/elsewhere";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { install, installAndExchange, makeApp } from "@/lib/testing/oauth";

/**
 * private_key_jwt (RFC 7523 §2.2) and installation tokens (grant_type=client_credentials), through
 * the routes: every refusal SPEC.md implies is a 401 invalid_client (or the grant's own 400) that
 * says what to change, and an installation token is an access token of the installation.
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;
let key: TestAppKey;
let rsaKey: TestAppKey;

beforeAll(async () => {
  agency = await makeAgency({ locations: 3 });
  app = await makeApp(agency.company.id);
  key = await addTestAppKey(app.app.id, "ES256");
  rsaKey = await addTestAppKey(app.app.id, "RS256");
  await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] });
});

const clientId = () => app.app.clientId;

async function installationToken(
  target: { companyId?: string; locationId?: string },
  assertion?: string,
): Promise<Awaited<ReturnType<typeof api.post>>> {
  return api.post("/oauth/token", {
    form: {
      grant_type: "client_credentials",
      ...assertionFields(assertion ?? (await clientAssertion(clientId(), key))),
      ...target,
    },
  });
}

describe("grant_type=client_credentials with private_key_jwt: an installation token", () => {
  it("answers a 1-hour Company token of the agency install, with its scopes and no refresh token", async () => {
    const answer = await installationToken({ companyId: agency.company.id });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toContain("no-store");
    expect(Object.keys(answer.body).sort()).toEqual(
      ["access_token", "companyId", "expires_in", "scope", "token_type", "userType"].sort(),
    );
    expect(answer.body).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      userType: "Company",
      companyId: agency.company.id,
    });
    expect(answer.body.scope.split(" ")).toContain("oauth.write");
    const introspected = await api.post("/oauth/introspect", {
      form: { token: answer.body.access_token, ...assertionFields(await clientAssertion(clientId(), key)) },
    });
    expect(introspected.body).toMatchObject({ active: true, authClass: "Company", companyId: agency.company.id });
    expect(introspected.body.exp - introspected.body.iat).toBe(3600);
  });

  it("answers a Location token for a sub-account the agency install chose, signed with RS256 too", async () => {
    const locationId = agency.locations[0]!.id;
    const answer = await installationToken({ locationId }, await clientAssertion(clientId(), rsaKey));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ userType: "Location", companyId: agency.company.id, locationId });
    expect(answer.body.refresh_token).toBeUndefined();
    // It works on the API like any Location token of the installation.
    const read = await api.get(`/locations/${locationId}`, { token: answer.body.access_token });
    expect(read.status).toBe(200);
  });

  it("answers a Location token of a sub-account's own install", async () => {
    const locationId = agency.locations[2]!.id;
    const subUser = await makeUser(agency.company.id, "account_admin", { locationIds: [locationId] });
    await install(subUser, clientId(), { level: "location", locationId });
    const answer = await installationToken({ locationId });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ userType: "Location", locationId });
  });

  it("not installed there: 400 invalid_grant naming where", async () => {
    const other = await makeAgency({ locations: 0 });
    expectError(
      await installationToken({ companyId: other.company.id }),
      400,
      "invalid_grant",
      /not installed on agency/,
    );
    expectError(
      await installationToken({ locationId: agency.locations[1]!.id }),
      400,
      "invalid_grant",
      /does not include sub-account/,
    );
    expectError(await installationToken({ locationId: "no-such-location" }), 400, "invalid_grant", /not installed/);
  });

  it("both companyId and locationId, or neither: 400 invalid_request", async () => {
    expectError(
      await installationToken({ companyId: agency.company.id, locationId: agency.locations[0]!.id }),
      400,
      "invalid_request",
      /not both/,
    );
    expectError(await installationToken({}), 400, "invalid_request", /companyId or locationId is required/);
  });

  it("with the client secret alone: 400 unauthorized_client saying a key is needed", async () => {
    const answer = await api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_id: clientId(),
        client_secret: app.clientSecret,
        companyId: agency.company.id,
      },
    });
    expectError(answer, 400, "unauthorized_client", /needs a key: authenticate with private_key_jwt/);
  });

  it("after an uninstall: its tokens stop, and a new one is 400 invalid_grant saying it was uninstalled", async () => {
    const other = await makeAgency({ locations: 1 });
    const theirs = await makeApp(other.company.id);
    const theirKey = await addTestAppKey(theirs.app.id);
    await installAndExchange(other.owner, theirs, { level: "agency", locationIds: [other.locations[0]!.id] });
    const ask = async () =>
      api.post("/oauth/token", {
        form: {
          grant_type: "client_credentials",
          ...assertionFields(await clientAssertion(theirs.app.clientId, theirKey)),
          companyId: other.company.id,
        },
      });
    const before = await ask();
    expect(before.status).toBe(200);
    const installation = await db().installation.findUniqueOrThrow({
      where: { installKey: `${theirs.app.id}:Company:${other.company.id}` },
    });
    await uninstallApp({ installationId: installation.id, actor: other.owner });
    const introspected = await api.post("/oauth/introspect", {
      form: { token: before.body.access_token, client_id: theirs.app.clientId, client_secret: theirs.clientSecret },
    });
    expect(introspected.body).toEqual({ active: false });
    expectError(await ask(), 400, "invalid_grant", /uninstalled from agency/);
  });
});

describe("private_key_jwt refusals: 401 invalid_client with a description that helps", () => {
  const refusedWith = async (assertion: string, description: RegExp) =>
    expectError(
      await installationToken({ companyId: agency.company.id }, assertion),
      401,
      "invalid_client",
      description,
    );

  it("a replayed jti", async () => {
    const assertion = await clientAssertion(clientId(), key);
    expect((await installationToken({ companyId: agency.company.id }, assertion)).status).toBe(200);
    await refusedWith(assertion, /already used: its "jti" is accepted once/);
  });

  it("an exp more than 5 minutes ahead, and an expired one", async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusedWith(await clientAssertion(clientId(), key, { claims: { exp: now + 600 } }), /more than 5 minutes/);
    await refusedWith(
      await clientAssertion(clientId(), key, { claims: { iat: now - 300, exp: now - 120 } }),
      /has expired/,
    );
  });

  it("a wrong aud, and a missing jti or exp", async () => {
    await refusedWith(
      await clientAssertion(clientId(), key, { claims: { aud: "https://elsewhere.example/oauth/token" } }),
      /"aud" must be the token endpoint/,
    );
    await refusedWith(await clientAssertion(clientId(), key, { claims: { jti: "" } }), /unique "jti"/);
  });

  it("the issuer itself is an accepted aud", async () => {
    const assertion = await clientAssertion(clientId(), key, { claims: { aud: appUrl() } });
    expect((await installationToken({ companyId: agency.company.id }, assertion)).status).toBe(200);
  });

  it("a wrong iss or sub, and a form client_id that differs", async () => {
    await refusedWith(await clientAssertion(clientId(), key, { claims: { sub: "someone-else" } }), /"iss" and "sub"/);
    // Another app's client_id as iss: that app has no such key (the same answer as an unknown one).
    const other = await makeApp(agency.company.id);
    await refusedWith(await clientAssertion(other.app.clientId, key), /No key of this client matches/);
    await refusedWith(await clientAssertion("no-such-client", key), /No key of this client matches/);
    const answer = await api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_id: other.app.clientId,
        ...assertionFields(await clientAssertion(clientId(), key)),
        companyId: agency.company.id,
      },
    });
    expectError(answer, 400, "invalid_request", /differs from the assertion's iss/);
  });

  it("an unknown kid", async () => {
    await refusedWith(
      await clientAssertion(clientId(), key, { header: { kid: "not-a-key-of-this-app" } }),
      /No key of this client matches the assertion's kid "not-a-key-of-this-app"/,
    );
  });

  it("alg none", async () => {
    const now = Math.floor(Date.now() / 1000);
    const unsigned = unsignedJwt(
      { kid: key.kid },
      { iss: clientId(), sub: clientId(), aud: `${appUrl()}/oauth/token`, jti: randomUUID(), exp: now + 60 },
    );
    await refusedWith(unsigned, /alg "none"; sign it with ES256 or RS256/);
  });

  it("an HS256 assertion keyed with the app's public key", async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({
      iss: clientId(),
      sub: clientId(),
      aud: `${appUrl()}/oauth/token`,
      jti: randomUUID(),
      exp: now + 60,
    })
      .setProtectedHeader({ alg: "HS256", kid: key.kid })
      .sign(await publicKeyAsHmacSecret(key));
    await refusedWith(forged, /alg "HS256"; sign it with ES256 or RS256/);
  });

  it("a signature by another key under this key's kid", async () => {
    const stranger = await addTestAppKey((await makeApp(agency.company.id)).app.id);
    await refusedWith(
      await clientAssertion(clientId(), { ...stranger, kid: key.kid }),
      /signature does not verify with the app's key/,
    );
  });

  it("not a JWT, the wrong assertion type, or an assertion beside a secret", async () => {
    await refusedWith("not-a-jwt", /not a signed JWT/);
    const wrongType = await api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer",
        client_assertion: await clientAssertion(clientId(), key),
        companyId: agency.company.id,
      },
    });
    expectError(wrongType, 401, "invalid_client", /client_assertion_type must be/);
    const both = await api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_secret: app.clientSecret,
        ...assertionFields(await clientAssertion(clientId(), key)),
        companyId: agency.company.id,
      },
    });
    expectError(both, 400, "invalid_request", /one way only/);
  });
});

describe("an assertion authenticates refresh, revocation and introspection too", () => {
  it("refreshes a token pair and revokes the new refresh token", async () => {
    const tokens = await installAndExchange(agency.owner, app, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const refreshed = await api.post("/oauth/token", {
      form: {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        ...assertionFields(await clientAssertion(clientId(), key)),
      },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.userType).toBe("Company");
    const revoked = await api.post("/oauth/revoke", {
      form: { token: refreshed.body.refresh_token, ...assertionFields(await clientAssertion(clientId(), key)) },
    });
    expect(revoked.status).toBe(200);
    const again = await api.post("/oauth/token", {
      form: {
        grant_type: "refresh_token",
        refresh_token: refreshed.body.refresh_token,
        ...assertionFields(await clientAssertion(clientId(), key)),
      },
    });
    expectError(again, 400, "invalid_grant");
  });
});

describe("a key removed, and a jti used, by another instance", () => {
  const elsewhere = writerElsewhere();

  it("a jti accepted elsewhere is refused here", async () => {
    const assertion = await clientAssertion(clientId(), key);
    const [, payload] = assertion.split(".");
    const { jti } = JSON.parse(Buffer.from(payload as string, "base64url").toString()) as { jti: string };
    await elsewhere(
      `INSERT INTO "ClientAssertion" ("appId", jti, "expiresAt") VALUES ($1, $2, now() + interval '5 minutes')`,
      [app.app.id, jti],
    );
    expectError(
      await installationToken({ companyId: agency.company.id }, assertion),
      401,
      "invalid_client",
      /already used/,
    );
  });

  it("a key removed elsewhere fails here at once, though this instance has the app's keys cached", async () => {
    const doomed = await addTestAppKey(app.app.id);
    expect(
      (await installationToken({ companyId: agency.company.id }, await clientAssertion(clientId(), doomed))).status,
    ).toBe(200);
    await elsewhere(`DELETE FROM "AppKey" WHERE id = $1`, [doomed.id]);
    expectError(
      await installationToken({ companyId: agency.company.id }, await clientAssertion(clientId(), doomed)),
      401,
      "invalid_client",
      /No key of this client matches/,
    );
    // The key's last use was noted.
    const used = await db().appKey.findUnique({ where: { id: key.id } });
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
    expect(databaseHandle().kind).toMatch(/postgresql|pglite/);
  });
});
