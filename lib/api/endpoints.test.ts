import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Method } from "@/lib/api/direct-router";
import { examplePath, isInternal } from "@/lib/api/openapi/operation";
import { apiClient, expectError, readAnswer } from "@/lib/testing/api-client";
import { makeAgency, newContact, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";

/**
 * The Version header, a rule every endpoint that declares it shares: checked before the token, on
 * every such operation of the route table. Each route's own answers are tested beside it
 * (app/contacts/route.test.ts, …).
 */

const api = apiClient(apiRoutes);

let A: TestAgency;
/** May create contacts in A's first sub-account. */
let subPi: string;

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  subPi = (await makeIntegration(A, { locationId: A.locations[0]!.id, scopes: ["contacts.write"] })).token;
});

/** POST /contacts/ of a new contact with `version` (none when null). */
const postContactWith = (version: string | null) =>
  api.post("/contacts/", { token: subPi, json: newContact(A.locations[0]!.id), version });

describe("Version header", () => {
  const cases: [string, string | null, RegExp][] = [
    ["missing", null, /Version header is required.*2021-04-15, 2021-07-28, 2023-02-21/],
    ["malformed", "yesterday", /"yesterday" is not supported.*2021-04-15, 2021-07-28, 2023-02-21/],
    ["unsupported date", "2022-01-01", /"2022-01-01" is not supported/],
  ];
  for (const [name, version, text] of cases) {
    it(`${name}: 400 invalid_version naming the accepted values, on every endpoint`, async () => {
      expectError(await postContactWith(version), 400, "invalid_version", text);
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
      expect((await postContactWith(version)).status).toBe(201);
    }
  });

  it("Version is checked before the token: no token and no Version is 400, not 401", async () => {
    const result = await api.post("/contacts/", { version: null, body: "{}" });
    expectError(result, 400, "invalid_version");
  });
});
