import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { db } from "@/lib/db/client";
import { type ApiRequest, apiClient, expectError } from "@/lib/testing/api-client";
import { newContact, uniqueSuffix } from "@/lib/testing/fixtures";
import { withIntegrationCallers } from "@/lib/testing/integrations";

/** POST /contacts/ (SPEC.md): the contact it answers, each invalid body, 409 on a duplicate e-mail, its paths. */

const api = apiClient(apiRoutes);
const callers = withIntegrationCallers(["contacts.write", "contacts.readonly"]);
const firstLocationId = () => callers.agency.locations[0]!.id;

/** A new contact of the first sub-account, `overrides` applied (undefined leaves a field out). */
const contactBody = (overrides: Record<string, unknown> = {}) => ({ ...newContact(firstLocationId()), ...overrides });

/** POST /contacts/ with `body` as JSON (or `request.body` as it stands), as the first sub-account's integration. */
function postContactJson(body: unknown, request: ApiRequest & { path?: string } = {}) {
  const { path = "/contacts/", ...sent } = request;
  const raw = sent.body === undefined ? { body: JSON.stringify(body) } : {};
  return api.post(path, { token: callers.first, contentType: "application/json", ...raw, ...sent });
}

describe("POST /contacts/ body", () => {
  it("201 with exactly the contact of SPEC.md", async () => {
    const body = contactBody({ email: `Mixed.Case-${uniqueSuffix()}@Example.COM` });
    const result = await postContactJson(body);
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      contact: {
        id: expect.any(String),
        locationId: firstLocationId(),
        firstName: body.firstName,
        lastName: body.lastName,
        email: body.email.toLowerCase(),
        phone: body.phone,
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
      expectError(await postContactJson(contactBody(overrides)), 400, "invalid_request", text);
    });
  }

  it("not JSON, an array, the wrong content type, broken UTF-8: 400", async () => {
    expectError(await postContactJson(null, { body: "{firstName:" }), 400, "invalid_request", /not valid JSON/);
    expectError(await postContactJson([contactBody()]), 400, "invalid_request");
    expectError(await postContactJson(null, { body: "null" }), 400, "invalid_request");
    expectError(
      await postContactJson(null, { body: "firstName=Ada", contentType: "application/x-www-form-urlencoded" }),
      400,
      "invalid_request",
      /Content-Type: application\/json/,
    );
    expectError(
      await postContactJson(null, { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }),
      400,
      "invalid_request",
      /UTF-8/,
    );
  });

  it("a 2 MB body is refused with 400 invalid_request, never a 5xx", async () => {
    const big = JSON.stringify(contactBody({ firstName: "x".repeat(2 * 1024 * 1024) }));
    const result = await postContactJson(null, { body: big });
    expectError(result, 400, "invalid_request", /larger than/);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 32; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        controller.close();
      },
    });
    const streamed = await postContactJson(null, { body: stream });
    expectError(streamed, 400, "invalid_request");
  });

  it("an agency-level token is told to use a Location token before its body is read", async () => {
    expectError(
      await postContactJson("garbage", { token: callers.agencyWide }),
      403,
      "forbidden",
      /\/oauth\/locationToken/,
    );
  });
});

describe("409 on a duplicate e-mail in one sub-account", () => {
  it("answers 409 conflict with the existing contact's id; another sub-account may use the e-mail", async () => {
    const body = contactBody();
    const first = await postContactJson(body);
    expect(first.status).toBe(201);
    const again = await postContactJson({ ...body, firstName: "Other", email: body.email.toUpperCase() });
    expectError(again, 409, "conflict", /already exists/);
    expect(again.body.contactId).toBe(first.body.contact.id);
    expect(again.body.meta).toEqual({ contactId: first.body.contact.id, matchingField: "email" });
    const elsewhere = await postContactJson(
      { ...body, locationId: callers.agency.locations[1]!.id },
      { token: callers.second },
    );
    expect(elsewhere.status).toBe(201);
  });

  it("ten concurrent creations of one e-mail: one 201, nine 409 with its id", async () => {
    const body = contactBody();
    const results = await Promise.all(Array.from({ length: 10 }, () => postContactJson(body)));
    const createdResults = results.filter((r) => r.status === 201);
    expect(createdResults).toHaveLength(1);
    const id = createdResults[0]!.body.contact.id;
    for (const r of results.filter((r) => r.status !== 201)) {
      expectError(r, 409, "conflict");
      expect(r.body.contactId).toBe(id);
    }
    expect(await db().contact.count({ where: { locationId: firstLocationId(), email: body.email } })).toBe(1);
  });
});

describe("paths and methods", () => {
  it("POST /contacts and POST /contacts/ both answer 201 (the same handler, no redirect)", async () => {
    expect((await postContactJson(contactBody(), { path: "/contacts" })).status).toBe(201);
    expect((await postContactJson(contactBody(), { path: "/contacts/" })).status).toBe(201);
  });

  it("an unserved method is 400 invalid_request with Allow and the error body", async () => {
    const result = await api.get("/contacts/", { version: null });
    expectError(result, 400, "invalid_request", /Use POST/);
    expect(result.headers.get("allow")).toBe("POST, OPTIONS");
  });
});
