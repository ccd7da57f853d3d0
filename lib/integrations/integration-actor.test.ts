import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { agencyOwner, makeAgency, subAccountOwner, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import type { IntegrationActor } from "./access";
import { createPrivateIntegration, rotateNow, updatePrivateIntegration } from "./lifecycle";
import { setMaximumTokenLifetime } from "./maximum-lifetime";
import { getPrivateIntegration, listPrivateIntegrations } from "./read";

/** The lib layer: an agency integration acting through the management API (no routes yet). */
let A: TestAgency;
let B: TestAgency;
let locationId: string;
let writer: IntegrationActor;
let reader: IntegrationActor;

async function actorWith(scopes: string[]): Promise<IntegrationActor> {
  const { integration } = await makeIntegration(A, { name: `Secret manager ${scopes.length}`, scopes });
  return { kind: "integration", integrationId: integration.id, companyId: A.company.id, scopes };
}

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  B = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  locationId = A.locations[0]!.id;
  writer = await actorWith(["private-integrations.write", "locations.readonly", "users.readonly"]);
  reader = await actorWith(["private-integrations.readonly"]);
});

describe("an integration acting on private integrations", () => {
  it("creates one with scopes it holds; the audit entry names the integration, not a person", async () => {
    const { integration, token } = await createPrivateIntegration(writer, subAccountOwner(locationId), {
      name: "Made by automation",
      scopes: ["locations.readonly"],
    });
    expect(token).toMatch(/^pit-/);
    // Not a person: the view names the integration that created it (the screens say so).
    expect(integration.createdBy).toEqual({
      id: writer.integrationId,
      name: "Secret manager 3",
      removed: false,
      integration: true,
    });
    const audit = await db().auditLog.findFirstOrThrow({
      where: { targetId: integration.id, action: "private_integration_created" },
    });
    expect(audit).toMatchObject({ actorUserId: null, actorIntegrationId: writer.integrationId });
    const row = await db().privateIntegration.findUniqueOrThrow({ where: { id: integration.id } });
    expect(row).toMatchObject({ createdByUserId: null, createdByIntegrationId: writer.integrationId });
  });

  it.each([
    ["a scope it does not hold", ["users.write"], /does not hold users\.write/],
    [
      "private-integrations.write, which it holds",
      ["private-integrations.write"],
      /cannot give private-integrations\.write/,
    ],
  ])("never gives %s (403 forbidden)", async (_name, scopes, message) => {
    await expect(
      createPrivateIntegration(writer, agencyOwner(A), { name: "Escalation", scopes: scopes as never }),
    ).rejects.toMatchObject({ kind: "forbidden", message: expect.stringMatching(message) });
  });

  it("edits: adding a scope it lacks is refused; a covered target's scopes may stay, even private-integrations.write", async () => {
    const { integration } = await makeIntegration(A, {
      name: "Manager",
      scopes: ["locations.readonly", "private-integrations.write"],
    });
    await expect(
      updatePrivateIntegration(writer, agencyOwner(A), integration.id, {
        name: "Manager",
        scopes: ["locations.readonly", "private-integrations.write", "oauth.write"],
      }),
    ).rejects.toMatchObject({ kind: "forbidden", message: expect.stringContaining("does not hold oauth.write") });
    const renamed = await updatePrivateIntegration(writer, agencyOwner(A), integration.id, {
      name: "Renamed by automation",
      scopes: ["locations.readonly", "private-integrations.write"],
    });
    expect(renamed.name).toBe("Renamed by automation");
    const audit = await db().auditLog.findFirstOrThrow({
      where: { targetId: integration.id, action: "private_integration_updated" },
    });
    expect(audit.actorIntegrationId).toBe(writer.integrationId);
  });

  it("edits nothing of an integration holding a scope it lacks, not even its name", async () => {
    const { integration } = await makeIntegration(A, {
      name: "Stronger",
      scopes: ["locations.readonly", "locations.write"],
    });
    await expect(
      updatePrivateIntegration(writer, agencyOwner(A), integration.id, {
        name: "Renamed by automation",
        scopes: ["locations.readonly", "locations.write"],
      }),
    ).rejects.toMatchObject({ kind: "forbidden", message: expect.stringMatching(/covers.*locations\.write/) });
  });

  it("rotates itself, but not an integration with scopes it lacks (its token would be stronger)", async () => {
    const rotated = await rotateNow(writer, agencyOwner(A), writer.integrationId);
    expect(rotated.token).toMatch(/^pit-/);
    const { integration } = await makeIntegration(A, { name: "Holds oauth.write", scopes: ["oauth.write"] });
    await expect(rotateNow(writer, agencyOwner(A), integration.id)).rejects.toMatchObject({ kind: "forbidden" });
  });

  it("private-integrations.readonly reads but does not change", async () => {
    expect((await listPrivateIntegrations(reader, agencyOwner(A))).length).toBeGreaterThan(0);
    expect((await getPrivateIntegration(reader, agencyOwner(A), writer.integrationId)).id).toBe(writer.integrationId);
    await expect(
      createPrivateIntegration(reader, agencyOwner(A), { name: "No", scopes: [] as never }),
    ).rejects.toMatchObject({ kind: "forbidden", message: expect.stringContaining("private-integrations.write") });
  });

  it("another agency's integrations do not exist for it", async () => {
    await expect(listPrivateIntegrations(writer, { level: "agency", companyId: B.company.id })).rejects.toMatchObject({
      kind: "not_found",
    });
    await expect(
      listPrivateIntegrations(writer, { level: "location", locationId: B.locations[0]!.id }),
    ).rejects.toMatchObject({ kind: "not_found" });
  });

  it("chosen Sub-accounts limit where it acts", async () => {
    const limited: IntegrationActor = { ...writer, allowedLocationIds: [] };
    await expect(listPrivateIntegrations(limited, subAccountOwner(locationId))).rejects.toMatchObject({
      kind: "forbidden",
    });
    expect(
      await listPrivateIntegrations({ ...writer, allowedLocationIds: [locationId] }, subAccountOwner(locationId)),
    ).toEqual(expect.any(Array));
  });

  it("the agency maximum holds for it as for a person", async () => {
    const C = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const { integration } = await makeIntegration(C, {
      name: "Automation",
      scopes: ["private-integrations.write", "locations.readonly"],
    });
    const actor: IntegrationActor = {
      kind: "integration",
      integrationId: integration.id,
      companyId: C.company.id,
      scopes: ["private-integrations.write", "locations.readonly"],
    };
    const now = new Date("2032-04-10T12:00:00Z");
    await setMaximumTokenLifetime(C.owner, "30", now);
    const owner = { level: "agency", companyId: C.company.id } as const;
    await expect(
      createPrivateIntegration(actor, owner, { name: "Forever", scopes: ["locations.readonly"] }, now),
    ).rejects.toMatchObject({
      field: "expires",
      message: expect.stringContaining("Maximum token lifetime is 30 days"),
    });
    await expect(
      createPrivateIntegration(
        actor,
        owner,
        { name: "Within", scopes: ["locations.readonly"], expires: "2032-05-10" },
        now,
      ),
    ).resolves.toBeDefined();
  });
});
