import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { type ApiAnswer, apiClient } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, installAndExchange, makeApp, postCodeGrant, postRefreshGrant } from "@/lib/testing/oauth";
import { applyEdit, textEdit } from "@/lib/testing/text-edits";

/**
 * A code redeemed twice revokes what it gave (RFC 6749 §4.1.2), and a used refresh token that comes
 * back revokes its family. A code or token that was never issued is neither: however close to a
 * live one it is spelled, it is only unknown, and the live one keeps working (else anyone who saw
 * one's shape could end a family by sending copies of it).
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
});

const agencyInstallOfOneSubAccount = () => ({ level: "agency" as const, locationIds: [agency.locations[0]!.id] });

/** Every edit of `live` sent with `post` is 400 invalid_grant and gives nothing; `live` then still works. */
async function expectEditsOnlyUnknown(live: string, post: (value: string) => Promise<ApiAnswer>) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
  await fc.assert(
    fc.asyncProperty(textEdit(alphabet), async (edit) => {
      const edited = applyEdit(live, edit);
      fc.pre(edited !== live);
      const answer = await post(edited);
      expect(answer.status).toBe(400);
      // Cut to nothing, it is none at all: the parameter is missing.
      expect(answer.body.error).toBe(edited === "" ? "invalid_request" : "invalid_grant");
      expect(answer.body).not.toHaveProperty("access_token");
    }),
    { numRuns: 150 },
  );
  const accepted = await post(live);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return accepted;
}

describe("an edited code or refresh token is only unknown", () => {
  it("a code: 400 invalid_grant wherever it is edited, and the live code is still redeemed", async () => {
    const { code } = await install(agency.owner, app.app.clientId, agencyInstallOfOneSubAccount());
    const redeemed = await expectEditsOnlyUnknown(code, (value) => postCodeGrant(api, app, value));
    expect(redeemed.body.access_token).toEqual(expect.any(String));
  }, 120_000);

  it("a refresh token: 400 invalid_grant wherever it is edited, never reuse: its family's live token still refreshes", async () => {
    const issued = await installAndExchange(agency.owner, app, agencyInstallOfOneSubAccount());
    const refreshed = await expectEditsOnlyUnknown(issued.refresh_token, (value) => postRefreshGrant(api, app, value));
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
  }, 120_000);
});
