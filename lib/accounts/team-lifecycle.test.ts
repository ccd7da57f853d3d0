// Over 250 lines on purpose: the Team lifecycle table (who may manage whom, Remove, Reset password,
// own password, user:set-password) shares its agency and sign-in helpers.
import { describe, expect, it } from "vitest";
import { toAuditItem, toIntegrationItem } from "@/components/private-integrations/serialize";
import { changeOwnPassword } from "@/lib/auth/password-change";
import { db } from "@/lib/db/client";
import { listAuditLog } from "@/lib/integrations/audit-log";
import { listPrivateIntegrations } from "@/lib/integrations/read";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import { actorAs } from "@/lib/testing/actor";
import { auditTrail } from "@/lib/testing/audit";
import { makeAgency, makeUser, testPassword } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { canChangeMemberPermissions, canManageMember } from "./permissions";
import { removeTeamMember, resetTeamMemberPassword, updateTeamMember } from "./team";
import { checkCredentials, listTeam, loadSignedIn, setPasswordByOperator } from "./users";

/** The session a person holds right after signing in: their id and their session version. */
async function sessionAfterSignIn(email: string, password = testPassword) {
  const signed = await checkCredentials(email, password);
  if (!signed) throw new Error(`${email} could not sign in`);
  return { userId: signed.id, sessionVersion: signed.sessionVersion };
}
const stillSignedIn = async (s: { userId: string; sessionVersion: number }) =>
  (await loadSignedIn(s.userId, s.sessionVersion)) !== null;

describe("who may manage whom (the Team screen shows controls only where this holds)", () => {
  it.each([
    ["agency_owner", "agency_owner", true],
    ["agency_owner", "agency_admin", true],
    ["agency_admin", "agency_owner", false],
    ["agency_admin", "agency_admin", true],
    ["agency_admin", "account_user", true],
    ["agency_user", "account_user", false],
    ["account_admin", "account_user", false],
  ] as const)("%s → %s: %s", (actorRole, memberRole, expected) => {
    const actor = actorAs(actorRole);
    expect(canManageMember(actor, { id: "m", role: memberRole, companyId: "c" })).toBe(expected);
    expect(canManageMember(actor, { id: "a", role: memberRole, companyId: "c" })).toBe(false);
    expect(canManageMember(actor, { id: "m", role: memberRole, companyId: "other" })).toBe(false);
  });
});

describe("only an owner changes an owner (SPEC.md › The edges of the HTTP server)", () => {
  it("refuses an admin any change to an owner: permissions, role, password, removal", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const admin = await makeUser(company.id, "agency_admin");
    const before = await db().user.findUniqueOrThrow({ where: { id: owner.id } });
    const auditBefore = await auditTrail(owner.id);
    const refused = { kind: "forbidden", message: expect.stringContaining("Only an agency owner can change an owner") };
    for (const change of [
      { agencyPrivateIntegrations: !before.agencyPrivateIntegrations },
      { locationPrivateIntegrations: !before.locationPrivateIntegrations },
      { role: "agency_owner" as const }, // same role, permissions unchanged: still not an admin's to save
      { role: "agency_user" as const },
      { locationIds: [] },
    ]) {
      await expect(updateTeamMember(admin, { userId: owner.id, ...change })).rejects.toMatchObject(refused);
    }
    await expect(resetTeamMemberPassword(admin, { userId: owner.id })).rejects.toMatchObject(refused);
    await expect(removeTeamMember(admin, { userId: owner.id })).rejects.toMatchObject(refused);
    const after = await db().user.findUniqueOrThrow({ where: { id: owner.id } });
    expect(after).toEqual(before);
    expect(await auditTrail(owner.id)).toEqual(auditBefore);
  });

  it("lets an owner change another owner's permissions, and an admin an admin's", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const second = await makeUser(company.id, "agency_owner");
    const admin = await makeUser(company.id, "agency_admin");
    const other = await makeUser(company.id, "agency_admin");
    expect(await updateTeamMember(owner, { userId: second.id, agencyPrivateIntegrations: true })).toMatchObject({
      agencyPrivateIntegrations: true,
    });
    expect(await updateTeamMember(admin, { userId: other.id, locationPrivateIntegrations: true })).toMatchObject({
      locationPrivateIntegrations: true,
    });
  });

  it.each([
    ["agency_owner", "agency_owner", true],
    ["agency_admin", "agency_owner", false],
    ["agency_admin", "agency_admin", true],
    ["agency_user", "account_user", false],
  ] as const)("the Team screen's permission switches: %s → %s: %s", (actorRole, memberRole, expected) => {
    const actor = actorAs(actorRole);
    expect(canChangeMemberPermissions(actor, { role: memberRole, companyId: "c" })).toBe(expected);
    expect(canChangeMemberPermissions(actor, { role: memberRole, companyId: "other" })).toBe(false);
  });
});

describe("Remove", () => {
  it("ends the member's sessions, refuses their sign-in, drops them from the team, and audits it", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const member = await makeUser(company.id, "agency_user");
    const session = await sessionAfterSignIn(member.email);
    expect(await stillSignedIn(session)).toBe(true);

    await removeTeamMember(owner, { userId: member.id });

    expect(await stillSignedIn(session)).toBe(false);
    expect(await checkCredentials(member.email, testPassword)).toBeNull();
    expect((await listTeam(company.id)).map((m) => m.id)).not.toContain(member.id);
    expect(await auditTrail(member.id)).toContainEqual({ action: "user_removed", actorUserId: owner.id });
    await expect(removeTeamMember(owner, { userId: member.id })).rejects.toMatchObject({ kind: "not_found" });
    await expect(updateTeamMember(owner, { userId: member.id, role: "agency_admin" })).rejects.toMatchObject({
      kind: "not_found",
    });
  });

  it("keeps the member's private integrations working, still naming who created them", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const admin = await makeUser(company.id, "agency_admin");
    const target = { level: "agency" as const, companyId: company.id };
    const { token } = await makeIntegration({ owner }, { creator: admin, name: "Sync" });

    const [before] = await listPrivateIntegrations(owner, target);
    expect(before?.createdBy).toEqual({ id: admin.id, name: admin.name, removed: false });
    await removeTeamMember(owner, { userId: admin.id });

    expect((await verifyPrivateIntegrationToken(token, new Date())).ok).toBe(true);
    const [listed] = await listPrivateIntegrations(owner, target);
    expect(listed?.createdBy).toEqual({ id: admin.id, name: admin.name, removed: true });
    // The screens say so: the card's "by …" and the audit log's actor.
    expect(toIntegrationItem(listed!).createdBy).toBe(`${admin.name} (removed)`);
    const created = (await listAuditLog(owner, target)).find((e) => e.action === "private_integration_created");
    expect(created?.actor).toMatchObject({ id: admin.id, removed: true });
    expect(toAuditItem(created!).actor).toBe(`${admin.name} (removed)`);
  });

  it("never removes the last owner, even when two owners remove each other at once", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const second = await makeUser(company.id, "agency_owner");
    const results = await Promise.allSettled([
      removeTeamMember(owner, { userId: second.id }),
      removeTeamMember(second, { userId: owner.id }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const owners = await db().user.count({ where: { companyId: company.id, role: "agency_owner", removedAt: null } });
    expect(owners).toBe(1);
  });
});

describe("Reset password", () => {
  it("shows a one-time password once, ends the member's sessions, and makes them choose their own", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const member = await makeUser(company.id, "account_admin", {
      locationIds: [(await db().location.create({ data: { companyId: company.id, name: "L" } })).id],
    });
    const before = await sessionAfterSignIn(member.email);

    const { password } = await resetTeamMemberPassword(owner, { userId: member.id });

    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(await stillSignedIn(before)).toBe(false);
    expect(await checkCredentials(member.email, testPassword)).toBeNull();
    const after = await sessionAfterSignIn(member.email, password);
    expect(await loadSignedIn(after.userId, after.sessionVersion)).toMatchObject({ mustChangePassword: true });
    const stored = await db().user.findUniqueOrThrow({ where: { id: member.id } });
    expect(stored.passwordHash).not.toContain(password);
    expect(await auditTrail(member.id)).toContainEqual({ action: "user_password_reset", actorUserId: owner.id });
    expect(JSON.stringify(await db().auditLog.findMany({ where: { targetId: member.id } }))).not.toContain(password);
  });
});

describe.each([
  ["Remove", removeTeamMember],
  ["Reset password", resetTeamMemberPassword],
])("%s", (_name, change) => {
  it("is for owners and admins only, never of oneself, an admin never an owner's, and not across agencies", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const admin = await makeUser(company.id, "agency_admin");
    const user = await makeUser(company.id, "agency_user");
    await expect(change(user, { userId: admin.id })).rejects.toMatchObject({ kind: "forbidden" });
    await expect(change(admin, { userId: owner.id })).rejects.toMatchObject({ kind: "forbidden" });
    await expect(change(owner, { userId: owner.id })).rejects.toMatchObject({ kind: "forbidden" });
    await expect(change(admin, { userId: admin.id })).rejects.toMatchObject({ kind: "forbidden" });
    const stranger = await makeAgency({ locations: 0 });
    await expect(change(stranger.owner, { userId: user.id })).rejects.toMatchObject({ kind: "not_found" });
    for (const person of [owner, admin, user])
      expect(await checkCredentials(person.email, testPassword)).not.toBeNull();
  });
});

describe("changing one's own password", () => {
  it("ends the other sessions, keeps none on the old password, clears a pending reset, and audits it", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const member = await makeUser(company.id, "agency_user");
    const { password: oneTime } = await resetTeamMemberPassword(owner, { userId: member.id });
    const other = await sessionAfterSignIn(member.email, oneTime);
    const current = await sessionAfterSignIn(member.email, oneTime);

    const { sessionVersion } = await changeOwnPassword(member, {
      currentPassword: oneTime,
      newPassword: "my own new password",
    });

    expect(await stillSignedIn(other)).toBe(false);
    expect(await stillSignedIn(current)).toBe(false);
    // The caller re-issues the current session with the new version (lib/auth/session.ts).
    expect(await loadSignedIn(current.userId, sessionVersion)).toMatchObject({ mustChangePassword: false });
    expect(await checkCredentials(member.email, oneTime)).toBeNull();
    expect(await checkCredentials(member.email, "my own new password")).not.toBeNull();
    expect(await auditTrail(member.id)).toContainEqual({ action: "user_password_changed", actorUserId: member.id });
  });

  it.each([
    [{ currentPassword: "wrong", newPassword: "a new password" }, "currentPassword", "not your current password"],
    [{ currentPassword: testPassword, newPassword: testPassword }, "newPassword", "different"],
  ])("refuses %o beside %s", async (input, field, message) => {
    const { owner } = await makeAgency({ locations: 0 });
    await expect(changeOwnPassword(owner, input)).rejects.toMatchObject({
      field,
      message: expect.stringContaining(message),
    });
    await expect(changeOwnPassword(owner, { currentPassword: testPassword, newPassword: "short" })).rejects.toThrow(
      "at least 8 characters",
    );
    expect(await checkCredentials(owner.email, testPassword)).not.toBeNull();
  });

  it("stops guessing the current password after the sign-in throttle's limit", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const now = new Date();
    for (let i = 0; i < 4; i++) {
      await expect(
        changeOwnPassword(owner, { currentPassword: `guess-${i}`, newPassword: "a new password" }, now),
      ).rejects.toMatchObject({ field: "currentPassword" });
    }
    // As at sign-in, the guess that reaches the limit is compared and answers that it is reached.
    await expect(
      changeOwnPassword(owner, { currentPassword: "guess-4", newPassword: "a new password" }, now),
    ).rejects.toMatchObject({ kind: "forbidden" });
    await expect(
      changeOwnPassword(owner, { currentPassword: testPassword, newPassword: "a new password" }, now),
    ).rejects.toMatchObject({ kind: "forbidden" });
  });
});

describe("user:set-password (operator)", () => {
  it("sets the password, ends every session, and audits it without an actor", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const session = await sessionAfterSignIn(owner.email);
    expect(await setPasswordByOperator({ email: owner.email.toUpperCase(), password: "pw" })).toEqual({
      id: owner.id,
    });
    expect(await stillSignedIn(session)).toBe(false);
    expect(await checkCredentials(owner.email, "pw")).not.toBeNull();
    expect(await auditTrail(owner.id)).toContainEqual({ action: "user_password_changed", actorUserId: null });
  });

  it("refuses an unknown or removed user", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const member = await makeUser(company.id, "agency_user");
    await removeTeamMember(owner, { userId: member.id });
    await expect(setPasswordByOperator({ email: "nobody@example.test", password: "x" })).rejects.toMatchObject({
      kind: "not_found",
    });
    await expect(setPasswordByOperator({ email: member.email, password: "x" })).rejects.toMatchObject({
      kind: "invalid",
    });
  });
});
