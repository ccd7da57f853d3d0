import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { applyEdit, textEdit } from "@/lib/testing/text-edits";
import { verifyPrivateIntegrationToken } from "./verify";

const t0 = new Date("2031-05-01T12:00:00.000Z");

describe("a private-integration token is accepted only as it was shown", () => {
  it("refuses every edit of a live token: a character replaced, inserted or removed anywhere, or the token cut", async () => {
    const { locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token } = await makeIntegration(
      { owner },
      { locationId: locations[0]!.id, name: "Edited", scopes: ["contacts.readonly"], now: t0 },
    );
    const alphabet = "0123456789abcdefABCDEF-_pitPIT. +/=";
    await fc.assert(
      fc.asyncProperty(textEdit(alphabet), async (edit) => {
        const edited = applyEdit(token, edit);
        fc.pre(edited !== token);
        const result = await verifyPrivateIntegrationToken(edited, t0);
        expect(result.ok ? "accepted" : result.reason).toMatch(/^(malformed|unknown)$/);
      }),
      { numRuns: 200 },
    );
    expect((await verifyPrivateIntegrationToken(token, t0)).ok).toBe(true);
  });
});
