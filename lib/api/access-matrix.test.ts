import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { remove, rotateLater, rotateNow } from "@/lib/integrations/lifecycle";
import { ROTATION_OVERLAP_MS } from "@/lib/integrations/views";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { type ApiAnswer, apiClient, expectBearerError, getLocation } from "@/lib/testing/api-client";
import { makeAgency, makeUser, newContact, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { clientForm, codeGrant, formRequest, install, installAndExchange, makeApp } from "@/lib/testing/oauth";

/**
 * The access matrix: every kind of Bearer token against GET /locations/{id} (own,
 * another sub-account of the agency, another agency's, nonexistent) and POST /contacts/ (own
 * sub-account, another one), each cell the exact status and error code.
 */

const api = apiClient(apiRoutes);
const DAY = 86_400_000;

let A: TestAgency;
let B: TestAgency;
const tokens: Record<string, string | null> = {};

/** A Location token from an install of `app` on the agency's sub-account `index` by its user, issued at `now`. */
async function subAccountInstallToken(agency: TestAgency, app: CreatedApp, index: number, now?: Date) {
  const user = await makeUser(agency.company.id, "account_user", { locationIds: [agency.locations[index]!.id] });
  if (!now)
    return (await installAndExchange(user, app, { level: "location", locationId: agency.locations[index]!.id }))
      .access_token;
  const { code } = await install(
    user,
    app.app.clientId,
    { level: "location", locationId: agency.locations[index]!.id },
    {},
    now,
  );
  const body = await tokenEndpoint(formRequest("/oauth/token", codeGrant(app, code, "Location")), now);
  return body.access_token as string;
}

beforeAll(async () => {
  A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  B = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const scopes = ["oauth.readonly", "oauth.write", "locations.readonly", "contacts.write", "contacts.readonly"];
  const appA = await makeApp(A.company.id, { scopes });
  const appB = await makeApp(B.company.id, { scopes });
  const L1 = A.locations[0]!.id;
  const subOwner = { level: "location", locationId: L1 } as const;

  tokens.company = (await installAndExchange(A.owner, appA, { level: "agency", locationIds: [L1] })).access_token;
  tokens.location = await subAccountInstallToken(A, appA, 0);
  tokens.agencyPi = (await makeIntegration(A, { name: "Agency PI" })).token;
  tokens.subPi = (
    await makeIntegration(A, { locationId: L1, name: "Sub PI", scopes: ["locations.readonly", "contacts.write"] })
  ).token;
  tokens.expired = await subAccountInstallToken(A, appA, 0, new Date(Date.now() - 2 * DAY));

  tokens.revoked = await subAccountInstallToken(A, appA, 0);
  const revoked = await api.post("/oauth/revoke", { form: { token: tokens.revoked, ...clientForm(appA) } });
  expect(revoked.status).toBe(200);

  const rotated = await makeIntegration(A, { locationId: L1, name: "Rotated" });
  tokens.afterRotateNow = rotated.token;
  await rotateNow(A.owner, subOwner, rotated.integration.id);

  const past = new Date(Date.now() - ROTATION_OVERLAP_MS - DAY);
  const aged = await makeIntegration(A, { locationId: L1, name: "Aged", now: past });
  tokens.after7Days = aged.token;
  await rotateLater(A.owner, subOwner, aged.integration.id, past);

  const deleted = await makeIntegration(A, { locationId: L1, name: "Deleted" });
  tokens.deleted = deleted.token;
  await remove(A.owner, subOwner, deleted.integration.id);

  tokens.lackingScope = (
    await makeIntegration(A, { locationId: L1, name: "Narrow", scopes: ["contacts.readonly"] })
  ).token;
  tokens.otherAgency = (
    await installAndExchange(B.owner, appB, { level: "agency", locationIds: [B.locations[0]!.id] })
  ).access_token;
  tokens.garbage = "not-a-token";
  tokens.none = null;
});

type Cell = [number, string?];
const ok: Cell = [200];
const created: Cell = [201];
const forbidden: Cell = [403, "forbidden"];
const noScope: Cell = [403, "insufficient_scope"];
const invalid: Cell = [401, "invalid_token"];
/** One cell in all six columns. */
const everywhere = (cell: Cell): [Cell, Cell, Cell, Cell, Cell, Cell] => [cell, cell, cell, cell, cell, cell];

// Columns: GET own (A's sub-account 1), other sub-account (A's 2), other agency (B's), nonexistent;
// POST own (A's sub-account 1), other (A's 2).
const matrix: Record<string, [Cell, Cell, Cell, Cell, Cell, Cell]> = {
  company: [ok, ok, forbidden, forbidden, forbidden, forbidden],
  location: [ok, forbidden, forbidden, forbidden, created, forbidden],
  agencyPi: [ok, ok, forbidden, forbidden, forbidden, forbidden],
  subPi: [ok, forbidden, forbidden, forbidden, created, forbidden],
  expired: everywhere(invalid),
  revoked: everywhere(invalid),
  afterRotateNow: everywhere(invalid),
  after7Days: everywhere(invalid),
  deleted: everywhere(invalid),
  lackingScope: everywhere(noScope),
  otherAgency: [forbidden, forbidden, ok, forbidden, forbidden, forbidden],
  garbage: everywhere(invalid),
  none: everywhere(invalid),
};

function postContact(token: string | null, locationId: string) {
  return api.post("/contacts/", { token, json: newContact(locationId) });
}

function expectCell(result: ApiAnswer, [status, code]: Cell, scope: string) {
  expect(result.status).toBe(status);
  expect(result.headers.get("x-trace-id")).toBeTruthy();
  expect(result.headers.get("x-ratelimit-max")).toBe("100");
  if (!code) return;
  expectBearerError(result, status, code);
  expect(String(result.body.error_description).length).toBeGreaterThan(20);
  if (code === "insufficient_scope") {
    expect(result.headers.get("www-authenticate")).toContain(`scope="${scope}"`);
    expect(result.body.error_description).toContain(scope);
  }
}

describe("access matrix", () => {
  for (const [name, cells] of Object.entries(matrix)) {
    it(`${name}: GET /locations/{id} own, other, other agency, nonexistent; POST /contacts/ own, other`, async () => {
      const token = tokens[name] ?? null;
      const targets = [A.locations[0]!.id, A.locations[1]!.id, B.locations[0]!.id, `missing${uniqueSuffix()}`];
      for (const [i, locationId] of targets.entries()) {
        const result = await getLocation(api, token, locationId);
        expectCell(result, cells[i]!, "locations.readonly");
        if (result.status === 200) {
          expect(result.body).toEqual({
            location: {
              id: locationId,
              companyId: locationId === B.locations[0]!.id ? B.company.id : A.company.id,
              name: expect.any(String),
              createdAt: expect.any(String),
            },
          });
        }
      }
      for (const [i, locationId] of [A.locations[0]!.id, A.locations[1]!.id].entries()) {
        const result = await postContact(token, locationId);
        expectCell(result, cells[4 + i]!, "contacts.write");
        if (result.status === 201) expect(result.body.contact).toMatchObject({ locationId });
      }
    });
  }

  it("tells an agency-level token on POST /contacts/ to use a Location token", async () => {
    for (const token of [tokens.company, tokens.agencyPi]) {
      const result = await postContact(token ?? null, A.locations[0]!.id);
      expect(result.body.error_description).toMatch(/Location token.*\/oauth\/locationToken/);
    }
  });
});
