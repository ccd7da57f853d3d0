import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { jwksFetches, jwksFor, resetJwksCache } from "@/lib/oauth/jwks-fetch";
import { apiClient, expectError } from "@/lib/testing/api-client";
import { addTestAppKey, assertionFields, clientAssertion, type TestAppKey } from "@/lib/testing/app-keys";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp } from "@/lib/testing/oauth";
import { expectRateLimited, startOfBurstWindow, withBurstLimit } from "@/lib/testing/rate-limits";
import { usageCounter } from "@/lib/usage/counter";
import { appUsageDays } from "@/lib/usage/read";

/**
 * Installation tokens at their edges: rate limits and usage like any token of the installation,
 * keys published at a JWKS URL, and every mangled assertion refused with a 4xx, never a 5xx.
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;
let key: TestAppKey;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
  key = await addTestAppKey(app.app.id);
  await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] });
});

const companyToken = async (assertion?: string, clientApp: CreatedApp = app) =>
  api.post("/oauth/token", {
    form: {
      grant_type: "client_credentials",
      ...assertionFields(assertion ?? (await clientAssertion(clientApp.app.clientId, key))),
      companyId: agency.company.id,
    },
  });

describe("counted like every token of the installation", () => {
  it("its API calls count in the app's usage", async () => {
    const { access_token } = (await companyToken()).body as { access_token: string };
    const before = (await appUsageDays(app.app.id, 1, new Date()))[0]?.ok ?? 0;
    const read = await api.get(`/locations/${agency.locations[0]!.id}`, { token: access_token });
    expect(read.status).toBe(200);
    await usageCounter().flush();
    const after = (await appUsageDays(app.app.id, 1, new Date()))[0]?.ok ?? 0;
    expect(after).toBe(before + 1);
  });
});

describe("rate limited in the bucket of the app on that agency", () => {
  withBurstLimit(2);
  // An agency and app of its own: on PostgreSQL the counters outlive the file's other tests.
  let own: { agency: TestAgency; app: CreatedApp; key: TestAppKey };
  beforeAll(async () => {
    const ownAgency = await makeAgency({ locations: 1 });
    const ownApp = await makeApp(ownAgency.company.id);
    own = { agency: ownAgency, app: ownApp, key: await addTestAppKey(ownApp.app.id) };
    await install(ownAgency.owner, ownApp.app.clientId, {
      level: "agency",
      locationIds: [ownAgency.locations[0]!.id],
    });
  });
  const ask = async () =>
    api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        ...assertionFields(await clientAssertion(own.app.app.clientId, own.key)),
        companyId: own.agency.company.id,
      },
    });

  it("the third request in a window is 429 with Retry-After", async () => {
    await startOfBurstWindow();
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    expectRateLimited(await ask());
  });
});

describe("keys published at the app's JWKS URL", () => {
  let server: Server;
  let published: TestAppKey[] = [];
  let jwksApp: CreatedApp;
  let url: string;

  beforeAll(async () => {
    server = createServer((_, response) => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    jwksApp = await makeApp(agency.company.id);
    await install(agency.owner, jwksApp.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    await db().appKey.create({ data: { appId: jwksApp.app.id, source: "jwks_url", jwksUrl: url } });
    // Keys made for another app are only used for their pairs: they are published here.
    const scratch = await makeApp(agency.company.id);
    published = [await addTestAppKey(scratch.app.id)];
    resetJwksCache();
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ask = async (signer: TestAppKey) =>
    api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        ...assertionFields(await clientAssertion(jwksApp.app.clientId, signer)),
        companyId: agency.company.id,
      },
    });

  it("verifies with a published key, fetched once and then cached", async () => {
    expect((await ask(published[0]!)).status).toBe(200);
    expect((await ask(published[0]!)).status).toBe(200);
    expect(jwksFetches()).toBe(1);
    const row = await db().appKey.findFirstOrThrow({ where: { appId: jwksApp.app.id } });
    expect(row.lastUsedKid).toBe(published[0]!.kid);
  });

  it("an unknown kid fetches the URL again (at most once per 10 seconds), so a new key works at once", async () => {
    const scratch = await makeApp(agency.company.id);
    const rotated = await addTestAppKey(scratch.app.id);
    // Fetched 10 s ago or more: may be fetched again. (Same-process cache: moved back in time.)
    resetJwksCache();
    expect((await ask(published[0]!)).status).toBe(200);
    published = [...published, rotated];
    // Within 10 s of the last fetch an unknown kid is refused without a fetch ...
    expectError(await ask(rotated), 401, "invalid_client", /No key of this client matches/);
    expect(jwksFetches()).toBe(1);
    // ... and 10 s after the last fetch it is fetched again, and the new key is found.
    const later = await jwksFor(url, rotated.kid, Date.now() + 10_001);
    expect(jwksFetches()).toBe(2);
    expect("keys" in later && later.keys.keys.map((k) => k.kid)).toContain(rotated.kid);
    expect((await ask(rotated)).status).toBe(200);
  });

  it("a URL that cannot be read: 401 invalid_client saying so", async () => {
    const broken = await makeApp(agency.company.id);
    await db().appKey.create({
      data: { appId: broken.app.id, source: "jwks_url", jwksUrl: "http://127.0.0.1:1/jwks.json" },
    });
    const answer = await api.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        ...assertionFields(await clientAssertion(broken.app.clientId, published[0]!)),
        companyId: agency.company.id,
      },
    });
    expectError(answer, 401, "invalid_client", /JWKS URL could not be read/);
  });
});

describe("every mangled assertion is refused with a 4xx (property)", () => {
  it("flipping, cutting or re-encoding any part never authenticates and never answers 5xx", async () => {
    const good = await clientAssertion(app.app.clientId, key);
    const [header, payload, signature] = good.split(".") as [string, string, string];
    const reencode = (part: string, edit: (o: Record<string, unknown>) => Record<string, unknown>) =>
      Buffer.from(JSON.stringify(edit(JSON.parse(Buffer.from(part, "base64url").toString()))), "utf8").toString(
        "base64url",
      );
    const mangled = fc.oneof(
      // One character of the token changed.
      fc
        .tuple(fc.nat({ max: good.length - 1 }), fc.constantFrom(..."AbZz09-_.=+/ "))
        .map(([at, c]) => `${good.slice(0, at)}${c}${good.slice(at + 1)}`),
      // Cut anywhere.
      fc.nat({ max: good.length - 1 }).map((at) => good.slice(0, at)),
      // A claim replaced by any JSON value.
      fc
        .tuple(fc.constantFrom("iss", "sub", "aud", "exp", "jti", "nbf", "iat"), fc.jsonValue())
        .map(([claim, value]) => `${header}.${reencode(payload, (o) => ({ ...o, [claim]: value }))}.${signature}`),
      // A header member replaced by any JSON value.
      fc
        .tuple(fc.constantFrom("alg", "kid", "typ", "crit", "jwk", "b64"), fc.jsonValue())
        .map(([member, value]) => `${reencode(header, (o) => ({ ...o, [member]: value }))}.${payload}.${signature}`),
      // Any string at all.
      fc.string({ maxLength: 300 }),
    );
    await fc.assert(
      fc.asyncProperty(mangled, async (assertion) => {
        fc.pre(assertion !== good);
        const answer = await companyToken(assertion);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        expect(answer.body.error).toMatch(/^(invalid_client|invalid_request)$/);
      }),
      { numRuns: 120 },
    );
    // The same assertion spelled with spare bits set in its signature's last character.
    const last = signature.at(-1) as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelled = `${header}.${payload}.${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`;
    expectError(await companyToken(respelled), 401, "invalid_client", /not a signed JWT/);
    expect((await companyToken(good)).status).toBe(200);
  });
});
