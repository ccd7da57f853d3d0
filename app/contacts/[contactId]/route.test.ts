import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { apiClient, expectBearerError } from "@/lib/testing/api-client";
import { newContact } from "@/lib/testing/fixtures";
import { makeIntegration, withIntegrationCallers } from "@/lib/testing/integrations";

/** GET /contacts/{contactId} (SPEC.md): a contact of the token's own sub-account, and nothing else. */

const api = apiClient(apiRoutes);
const callers = withIntegrationCallers(["contacts.write", "contacts.readonly"]);
/** Of the first sub-account too: may create contacts, not read them. */
let writeOnly: string;

beforeAll(async () => {
  const locationId = callers.agency.locations[0]!.id;
  writeOnly = (await makeIntegration(callers.agency, { locationId, scopes: ["contacts.write"] })).token;
});

const getContact = (contactId: string, token: string) => api.get(`/contacts/${contactId}`, { token });

describe("GET /contacts/{contactId}", () => {
  it("reads a contact of the token's sub-account; another sub-account's is 404; agency tokens 403", async () => {
    const created = await api.post("/contacts/", {
      token: callers.first,
      json: newContact(callers.agency.locations[0]!.id),
    });
    expect(created.status).toBe(201);
    const id = created.body.contact.id;
    const result = await getContact(id, callers.first);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ contact: created.body.contact });
    expectBearerError(await getContact(id, callers.second), 404, "not_found");
    expectBearerError(await getContact("nope", callers.first), 404, "not_found");
    expectBearerError(await getContact(id, callers.agencyWide), 403, "forbidden", /Location token/);
    const narrow = await getContact(id, writeOnly);
    expectBearerError(narrow, 403, "insufficient_scope", /contacts.readonly/);
    expect(narrow.headers.get("www-authenticate")).toContain('scope="contacts.readonly"');
  });
});
