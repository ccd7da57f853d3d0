import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency, makeUser, testPassword } from "@/lib/testing/fixtures";
import { updateTeamMember } from "./team";
import { checkCredentials, createUser } from "./users";

describe("team members", () => {
  it("gives owners and admins both private-integration permissions and everyone else none", async () => {
    const { company, locations } = await makeAgency();
    const admin = await makeUser(company.id, "agency_admin");
    const user = await makeUser(company.id, "agency_user");
    const accountAdmin = await makeUser(company.id, "account_admin", { locationIds: [locations[0]!.id] });
    expect([admin.agencyPrivateIntegrations, admin.locationPrivateIntegrations]).toEqual([true, true]);
    expect([user.agencyPrivateIntegrations, user.locationPrivateIntegrations]).toEqual([false, false]);
    expect([accountAdmin.agencyPrivateIntegrations, accountAdmin.locationPrivateIntegrations]).toEqual([false, false]);
    expect(accountAdmin.locationIds).toEqual([locations[0]!.id]);
  });

  it("refuses a second account with the same e-mail, whatever its case", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    await expect(
      createUser({
        email: owner.email.toUpperCase(),
        password: testPassword,
        name: "Twin",
        role: "agency_user",
        companyId: company.id,
      }),
    ).rejects.toMatchObject({ kind: "conflict", field: "email" });
  });

  it("needs a sub-account of the same agency for sub-account roles", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const other = await makeAgency({ locations: 1 });
    const base = { password: testPassword, name: "X", role: "account_user" as const, companyId: company.id };
    await expect(createUser({ ...base, email: "a@example.test" })).rejects.toMatchObject({ field: "locationIds" });
    await expect(
      createUser({ ...base, email: "b@example.test", locationIds: [other.locations[0]!.id] }),
    ).rejects.toMatchObject({ field: "locationIds" });
  });

  it("lets an admin switch permissions, audits it, and keeps others out", async () => {
    const { company, owner } = await makeAgency();
    const member = await makeUser(company.id, "agency_user");
    const updated = await updateTeamMember(owner, { userId: member.id, agencyPrivateIntegrations: true });
    expect(updated.agencyPrivateIntegrations).toBe(true);
    const audit = await db().auditLog.findFirst({ where: { targetId: member.id, action: "user_permissions_changed" } });
    expect(audit?.actorUserId).toBe(owner.id);
    await expect(
      updateTeamMember(member, { userId: owner.id, agencyPrivateIntegrations: false }),
    ).rejects.toMatchObject({ kind: "forbidden" });
    const stranger = await makeAgency({ locations: 0 });
    await expect(updateTeamMember(stranger.owner, { userId: member.id, role: "agency_admin" })).rejects.toMatchObject({
      kind: "not_found",
    });
  });

  it("checks credentials without telling which part was wrong", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    expect((await checkCredentials(owner.email.toUpperCase(), testPassword))?.id).toBe(owner.id);
    expect(await checkCredentials(owner.email, "wrong password")).toBeNull();
    expect(await checkCredentials("nobody@example.test", testPassword)).toBeNull();
    expect(await checkCredentials("not an email", testPassword)).toBeNull();
  });
});
