import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { listLocations } from "./companies";
import { setLabsFeature } from "./labs";
import { readShellFacts } from "./shell";

describe("readShellFacts: what every signed-in page shows around itself, in one statement", () => {
  it("answers the agency, its sub-accounts as listLocations orders them, the unread count and Labs", async () => {
    const { company, owner } = await makeAgency({ locations: 3 });
    const other = await makeAgency({ locations: 1 });
    await db().location.create({ data: { companyId: company.id, name: "A first one" } });
    await db().company.update({ where: { id: company.id }, data: { maximumTokenLifetimeDays: 90 } });
    const integration = await db().privateIntegration.create({
      data: { companyId: company.id, name: "Reminded", scopes: ["locations.readonly"] },
    });
    const notification = {
      userId: owner.id,
      integrationId: integration.id,
      kind: "expiry" as const,
      dueDate: "2026-12-01",
    };
    await db().notification.createMany({
      data: [
        { ...notification, milestone: "a" },
        { ...notification, milestone: "b" },
        { ...notification, milestone: "c", readAt: new Date() },
      ],
    });

    const facts = await readShellFacts(company.id, owner.id);
    expect(facts).toEqual({
      companyName: company.name,
      maximumTokenLifetimeDays: 90,
      locations: (await listLocations(company.id)).map(({ id, companyId, name }) => ({ id, companyId, name })),
      unread: 2,
      privateIntegrationsLab: false,
    });
    expect(facts?.locations[0]?.name).toBe("A first one");

    await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: true });
    expect(await readShellFacts(company.id, owner.id)).toMatchObject({ privateIntegrationsLab: true });
    // Another agency's person reads no count of this one's.
    expect(await readShellFacts(other.company.id, other.owner.id)).toMatchObject({
      unread: 0,
      privateIntegrationsLab: false,
      maximumTokenLifetimeDays: null,
    });
    expect(await readShellFacts("no-such-agency", owner.id)).toBeNull();
  });
});
