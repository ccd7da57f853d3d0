import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { installAndExchange, makeApp, postRefreshGrant } from "@/lib/testing/oauth";
import { applyEdit, textEdit } from "@/lib/testing/text-edits";

/**
 * Refresh-token reuse detection revokes a family when one of its used tokens comes back. A token
 * that was never issued is no such reuse: however close to a live one it is spelled, it is only an
 * unknown token, and the live one keeps working (else anyone who saw a token's shape could end
 * its family by sending copies of it).
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
});

describe("an edited refresh token", () => {
  it("is 400 invalid_grant wherever it is edited, and its family's live token still refreshes", async () => {
    const issued = await installAndExchange(agency.owner, app, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const live = issued.refresh_token;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    await fc.assert(
      fc.asyncProperty(textEdit(alphabet), async (edit) => {
        const edited = applyEdit(live, edit);
        fc.pre(edited !== live);
        const answer = await postRefreshGrant(api, app, edited);
        expect(answer.status).toBe(400);
        // Cut to nothing, it is no token at all: the parameter is missing.
        expect(answer.body.error).toBe(edited === "" ? "invalid_request" : "invalid_grant");
        expect(answer.body).not.toHaveProperty("access_token");
      }),
      { numRuns: 150 },
    );
    const refreshed = await postRefreshGrant(api, app, live);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
  }, 120_000);
});
