import { describe, expect, it } from "vitest";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { install, makeApp } from "@/lib/testing/oauth";
import { listInstallableApps, listInstalledApps } from "./marketplace";

describe("listInstalledApps", () => {
  it("shows a sub-account user only their own sub-accounts of an agency install; the agency sees all", async () => {
    const agency = await makeAgency({ locations: 3 });
    const [mine, theirs, alsoTheirs] = agency.locations.map((l) => ({ id: l.id, name: l.name }));
    const app = await makeApp(agency.company.id);
    const agencyInstall = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [mine!.id, theirs!.id, alsoTheirs!.id],
    });
    const subUser = await makeUser(agency.company.id, "account_user", { locationIds: [mine!.id] });

    const seenBy = async (actor: typeof subUser) =>
      (await listInstalledApps(actor)).find((i) => i.installationId === agencyInstall.installationId)?.locations;
    expect(await seenBy(subUser)).toEqual([mine]);
    expect((await seenBy(agency.owner))?.map((l) => l.id).sort()).toEqual(
      [mine!.id, theirs!.id, alsoTheirs!.id].sort(),
    );
  });
});

describe("the marketplace, once per place", () => {
  it("lists an app installed at the agency and at a sub-account once per place, and does not offer it there again", async () => {
    const agency = await makeAgency({ locations: 2 });
    const [first, second] = agency.locations;
    const app = await makeApp(agency.company.id);
    const other = await makeApp(agency.company.id);
    const firstUser = await makeUser(agency.company.id, "account_user", { locationIds: [first!.id] });
    const bothUser = await makeUser(agency.company.id, "account_user", { locationIds: [first!.id, second!.id] });

    await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [first!.id] });
    await install(firstUser, app.app.clientId, { level: "location", locationId: first!.id });
    // Installing again at the same places re-authorizes the same installations.
    await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [first!.id, second!.id] });
    await install(firstUser, app.app.clientId, { level: "location", locationId: first!.id });

    const places = (installed: Awaited<ReturnType<typeof listInstalledApps>>) =>
      installed
        .filter((i) => i.appId === app.app.id)
        .map((i) => (i.userType === "Company" ? "agency" : i.locations.map((l) => l.id).join()))
        .sort();
    // The agency sees its own install and the sub-account's, each once.
    const ownerView = await listInstalledApps(agency.owner);
    expect(places(ownerView)).toEqual(["agency", first!.id].sort());
    // Its agency install can be opened again to change the sub-accounts; the sub-account's cannot.
    const byType = (type: string) => ownerView.find((i) => i.appId === app.app.id && i.userType === type);
    expect(byType("Company")?.changeUrl).toContain(`client_id=${app.app.clientId}`);
    expect(byType("Location")?.changeUrl).toBeUndefined();

    const offered = async (actor: typeof firstUser) => (await listInstallableApps(actor)).map((a) => a.id);
    // The agency installs for the agency, where the app is: not offered; the other app is.
    expect(await offered(agency.owner)).not.toContain(app.app.id);
    expect(await offered(agency.owner)).toContain(other.app.id);
    // The first sub-account has its own install: not offered to someone who works only there.
    expect(await offered(firstUser)).not.toContain(app.app.id);
    expect(await offered(firstUser)).toContain(other.app.id);
    // Someone who also works in the second sub-account can still install it there.
    expect(await offered(bothUser)).toContain(app.app.id);
    await install(bothUser, app.app.clientId, { level: "location", locationId: second!.id });
    expect(await offered(bothUser)).not.toContain(app.app.id);
    expect(places(await listInstalledApps(bothUser))).toEqual(["agency", first!.id, second!.id].sort());
  });
});
