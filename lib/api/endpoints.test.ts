// The API endpoints' shared rules (Version, body, 409, paths and methods) over one agency and its
// four tokens; one table, read top to bottom.
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Method } from "@/lib/api/direct-router";
import { examplePath, isInternal } from "@/lib/api/openapi/operation";
import { db } from "@/lib/db/client";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { type ApiRequest, apiClient, expectError, readAnswer } from "@/lib/testing/api-client";
import { makeAgency, subAccountOwner, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";

/** Version, body validation, 409, GET /contacts/{id} and method answers of the token endpoints. */

let A: TestAgency;
let subPi: string;
let otherSubPi: string;
let agencyPi: string;
let readOnlyPi: string;

beforeAll(async () => {
  A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const scopes = ["locations.readonly", "contacts.write", "contacts.readonly"];
  subPi = (await createPrivateIntegration(A.owner, subAccountOwner(A.locations[0]!.id), { name: "CRM", scopes })).token;
  otherSubPi = (await createPrivateIntegration(A.owner, subAccountOwner(A.locations[1]!.id), { name: "CRM 2", scopes }))
    .token;
  readOnlyPi = (
    await createPrivateIntegration(A.owner, subAccountOwner(A.locations[0]!.id), {
      name: "RO",
      scopes: ["contacts.write"],
    })
  ).token;
  agencyPi = (
    await createPrivateIntegration(
      A.owner,
      { level: "agency", companyId: A.company.id },
      { name: "Agency", scopes: ["locations.readonly"] },
    )
  ).token;
});

const api = apiClient(apiRoutes);

function contactBody(overrides: Record<string, unknown> = {}) {
  return {
    firstName: "Grace",
    lastName: "Hopper",
    email: `grace-${uniqueSuffix()}@example.com`,
    phone: "+442071838750",
    locationId: A.locations[0]!.id,
    ...overrides,
  };
}

/** POST /contacts/ with `body` as JSON, as the sub-account integration unless `request` says otherwise. */
function post(body: unknown, request: ApiRequest & { path?: string } = {}) {
  const { path = "/contacts/", ...sent } = request;
  const raw = sent.body === undefined ? { body: JSON.stringify(body) } : {};
  return api.post(path, { token: subPi, contentType: "application/json", ...raw, ...sent });
}

describe("Version header", () => {
  const cases: [string, string | null, RegExp][] = [
    ["missing", null, /Version header is required.*2021-04-15, 2021-07-28, 2023-02-21/],
    ["malformed", "yesterday", /"yesterday" is not supported.*2021-04-15, 2021-07-28, 2023-02-21/],
    ["unsupported date", "2022-01-01", /"2022-01-01" is not supported/],
  ];
  for (const [name, version, text] of cases) {
    it(`${name}: 400 invalid_version naming the accepted values, on every endpoint`, async () => {
      expectError(await post(contactBody(), { version }), 400, "invalid_version", text);
      const sent = { token: subPi, version };
      // Every operation that declares the Version header (the route table's), its path from the examples.
      const checked: string[] = [];
      for (const route of apiRoutes) {
        for (const [method, handler] of Object.entries(route.handlers)) {
          const op = handler.declaration;
          if (!op || isInternal(op) || !op.version) continue;
          const { path } = examplePath(route.path, op);
          expectError(await readAnswer(await api.send(method as Method, path, sent)), 400, "invalid_version", text);
          checked.push(`${method} ${route.path}`);
        }
      }
      expect(checked).toEqual(
        expect.arrayContaining([
          "GET /locations/[locationId]",
          "GET /contacts/[contactId]",
          "POST /oauth/locationToken",
          "GET /oauth/installedLocations",
        ]),
      );
      expect(checked.length).toBeGreaterThanOrEqual(5);
    });
  }

  it("every accepted version works", async () => {
    for (const version of ["2021-04-15", "2021-07-28", "2023-02-21"]) {
      expect((await post(contactBody(), { version })).status).toBe(201);
    }
  });

  it("Version is checked before the token: no token and no Version is 400, not 401", async () => {
    const result = await api.post("/contacts/", { version: null, body: "{}" });
    expectError(result, 400, "invalid_version");
  });
});

describe("POST /contacts/ body", () => {
  it("201 with exactly the contact of SPEC.md", async () => {
    const body = contactBody({ email: `Mixed.Case-${uniqueSuffix()}@Example.COM` });
    const result = await post(body);
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      contact: {
        id: expect.any(String),
        locationId: A.locations[0]!.id,
        firstName: "Grace",
        lastName: "Hopper",
        email: (body.email as string).toLowerCase(),
        phone: "+442071838750",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ["bad e-mail", { email: "not-an-email" }, /^email: must be an e-mail address/],
    ["e-mail with spaces", { email: "a b@example.com" }, /^email:/],
    ["phone without +", { phone: "14155550123" }, /^phone: must be in E.164 format/],
    ["phone with spaces", { phone: "+1 415 555 0123" }, /^phone: must be in E.164/],
    ["phone too long", { phone: "+1234567890123456" }, /^phone:/],
    ["phone starting with 0", { phone: "+0123456" }, /^phone:/],
    ["missing firstName", { firstName: undefined }, /^firstName is required/],
    ["missing email", { email: undefined }, /^email is required/],
    ["missing locationId", { locationId: undefined }, /^locationId is required/],
    ["extra field", { tags: ["x"] }, /fields this endpoint does not take: tags/],
    ["number for firstName", { firstName: 42 }, /^firstName: must be a string/],
    ["null phone", { phone: null }, /^phone: must be a string/],
    ["empty lastName", { lastName: "   " }, /^lastName: must not be empty/],
    ["object for locationId", { locationId: { id: "x" } }, /^locationId: must be a string/],
  ];
  for (const [name, overrides, text] of invalid) {
    it(`${name}: 400 invalid_request naming the field`, async () => {
      expectError(await post(contactBody(overrides)), 400, "invalid_request", text);
    });
  }

  it("not JSON, an array, the wrong content type, broken UTF-8: 400", async () => {
    expectError(await post(null, { body: "{firstName:" }), 400, "invalid_request", /not valid JSON/);
    expectError(await post([contactBody()]), 400, "invalid_request");
    expectError(await post(null, { body: "null" }), 400, "invalid_request");
    expectError(
      await post(null, { body: "firstName=Ada", contentType: "application/x-www-form-urlencoded" }),
      400,
      "invalid_request",
      /Content-Type: application\/json/,
    );
    expectError(await post(null, { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }), 400, "invalid_request", /UTF-8/);
  });

  it("a 2 MB body is refused with 400 invalid_request, never a 5xx", async () => {
    const big = JSON.stringify(contactBody({ firstName: "x".repeat(2 * 1024 * 1024) }));
    const result = await post(null, { body: big });
    expectError(result, 400, "invalid_request", /larger than/);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 32; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        controller.close();
      },
    });
    const streamed = await post(null, { body: stream });
    expectError(streamed, 400, "invalid_request");
  });

  it("an agency-level token is told to use a Location token before its body is read", async () => {
    expectError(await post("garbage", { token: agencyPi }), 403, "forbidden", /\/oauth\/locationToken/);
  });
});

describe("409 on a duplicate e-mail in one sub-account", () => {
  it("answers 409 conflict with the existing contact's id; another sub-account may use the e-mail", async () => {
    const body = contactBody();
    const first = await post(body);
    expect(first.status).toBe(201);
    const again = await post({ ...body, firstName: "Other", email: (body.email as string).toUpperCase() });
    expectError(again, 409, "conflict", /already exists/);
    expect(again.body.contactId).toBe(first.body.contact.id);
    expect(again.body.meta).toEqual({ contactId: first.body.contact.id, matchingField: "email" });
    const elsewhere = await post({ ...body, locationId: A.locations[1]!.id }, { token: otherSubPi });
    expect(elsewhere.status).toBe(201);
  });

  it("ten concurrent creations of one e-mail: one 201, nine 409 with its id", async () => {
    const body = contactBody();
    const results = await Promise.all(Array.from({ length: 10 }, () => post(body)));
    const createdResults = results.filter((r) => r.status === 201);
    expect(createdResults).toHaveLength(1);
    const id = createdResults[0]!.body.contact.id;
    for (const r of results.filter((r) => r.status !== 201)) {
      expectError(r, 409, "conflict");
      expect(r.body.contactId).toBe(id);
    }
    expect(await db().contact.count({ where: { locationId: A.locations[0]!.id, email: body.email as string } })).toBe(
      1,
    );
  });
});

describe("GET /contacts/{contactId}", () => {
  const get = (contactId: string, token: string) => api.get(`/contacts/${contactId}`, { token });

  it("reads a contact of the token's sub-account; another sub-account's is 404; agency tokens 403", async () => {
    const created = await post(contactBody());
    const id = created.body.contact.id;
    const result = await get(id, subPi);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ contact: created.body.contact });
    expectError(await get(id, otherSubPi), 404, "not_found");
    expectError(await get("nope", subPi), 404, "not_found");
    expectError(await get(id, agencyPi), 403, "forbidden", /Location token/);
    const narrow = await get(id, readOnlyPi);
    expectError(narrow, 403, "insufficient_scope", /contacts.readonly/);
    expect(narrow.headers.get("www-authenticate")).toContain('scope="contacts.readonly"');
  });
});

describe("paths and methods", () => {
  it("POST /contacts and POST /contacts/ both answer 201 (the same handler, no redirect)", async () => {
    expect((await post(contactBody(), { path: "/contacts" })).status).toBe(201);
    expect((await post(contactBody(), { path: "/contacts/" })).status).toBe(201);
  });

  it("an unserved method is 400 invalid_request with Allow and the error body", async () => {
    const result = await api.get("/contacts/", { version: null });
    expectError(result, 400, "invalid_request", /Use POST/);
    expect(result.headers.get("allow")).toBe("POST, OPTIONS");
  });
});
