import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp, postCodeGrant } from "@/lib/testing/oauth";
import { applyEdit, textEdit } from "@/lib/testing/text-edits";

/**
 * A code redeemed twice revokes what it gave (RFC 6749 §4.1.2). A code that was never issued is no
 * second redemption: however close to a live one it is spelled, it is only an unknown code, and the
 * live one is still redeemed once.
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
});

describe("an edited authorization code", () => {
  it("is 400 invalid_grant wherever it is edited, and the live code is still redeemed", async () => {
    const { code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    await fc.assert(
      fc.asyncProperty(textEdit(alphabet), async (edit) => {
        const edited = applyEdit(code, edit);
        fc.pre(edited !== code);
        const answer = await postCodeGrant(api, app, edited);
        expect(answer.status).toBe(400);
        // Cut to nothing, it is no code at all: the parameter is missing.
        expect(answer.body.error).toBe(edited === "" ? "invalid_request" : "invalid_grant");
        expect(answer.body).not.toHaveProperty("access_token");
      }),
      { numRuns: 150 },
    );
    const redeemed = await postCodeGrant(api, app, code);
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    expect(redeemed.body.access_token).toEqual(expect.any(String));
  }, 120_000);
});
