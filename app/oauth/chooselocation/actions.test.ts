import { beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeApp, testRedirectUri } from "@/lib/testing/oauth";
import { approveInstallAction } from "./actions";

/** The install screen's Install, for a person whose password was reset and not yet replaced. */

let signedIn: ReturnType<typeof signedInAs> | null = null;
vi.mock("@/lib/auth/session", () => ({ getSignedIn: async () => signedIn }));

let agency: TestAgency;
let clientId: string;
beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  clientId = (await makeApp(agency.company.id)).app.clientId;
});

function installForm(): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: testRedirectUri,
    state: "s",
    level: "agency",
    allLocations: "true",
  }))
    form.set(k, v);
  form.append("locationIds[]", agency.locations[0]!.id);
  return form;
}

describe("approveInstallAction", () => {
  it("refuses while the person must replace a reset password, and installs nothing", async () => {
    signedIn = { ...signedInAs(agency.owner), mustChangePassword: true };
    const result = await approveInstallAction({}, installForm());
    expect(result.error).toMatch(/Choose your own password first/);
    expect(await db().installation.count({ where: { companyId: agency.company.id } })).toBe(0);
  });

  it("installs once the password is their own (Next.js redirects to the app)", async () => {
    signedIn = { ...signedInAs(agency.owner), mustChangePassword: false };
    await expect(approveInstallAction({}, installForm())).rejects.toMatchObject({
      digest: expect.stringContaining("NEXT_REDIRECT"),
    });
    expect(await db().installation.count({ where: { companyId: agency.company.id } })).toBe(1);
  });
});
