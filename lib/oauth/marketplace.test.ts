import { describe, expect, it } from "vitest";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { install, makeApp } from "@/lib/testing/oauth";
import { listInstalledApps } from "./marketplace";

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
