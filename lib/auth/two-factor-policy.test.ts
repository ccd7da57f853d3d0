import { describe, expect, it } from "vitest";
import { loadSignedIn } from "@/lib/accounts/users";
import { beginTotpSetup, confirmTotpSetup } from "@/lib/auth/two-factor/authenticator-app";
import { totpCodeAt } from "@/lib/auth/two-factor/totp";
import { db } from "@/lib/db/client";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { requiresTwoFactor, setRequireTwoFactor } from "./two-factor-policy";

async function withTotp(person: { id: string; email: string }) {
  const { secret } = await beginTotpSetup(person);
  await confirmTotpSetup(person.id, totpCodeAt(secret, new Date()));
}

describe("Require two-factor authentication", () => {
  it("is the owner's alone, and only once their own two-factor is on", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const admin = await makeUser(company.id, "agency_admin");
    await expect(setRequireTwoFactor(admin, true)).rejects.toMatchObject({ kind: "forbidden" });
    await expect(setRequireTwoFactor(owner, true)).rejects.toMatchObject({ kind: "conflict" });
    expect(await requiresTwoFactor(company.id)).toBe(false);
    await withTotp(owner);
    await setRequireTwoFactor(owner, true);
    expect(await requiresTwoFactor(company.id)).toBe(true);
    const audit = await db().auditLog.findFirstOrThrow({
      where: { companyId: company.id, action: "two_factor_policy_changed" },
    });
    expect(audit).toMatchObject({ actorUserId: owner.id, details: { requireTwoFactor: true } });
  });

  it("leads every member without a second factor, of the agency and its sub-accounts, to set one up", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 1 });
    const admin = await makeUser(company.id, "agency_admin");
    const sub = await makeUser(company.id, "account_user", { locationIds: [locations[0]!.id] });
    await withTotp(owner);
    await withTotp(admin);
    await setRequireTwoFactor(owner, true);
    expect(await loadSignedIn(owner.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });
    expect(await loadSignedIn(admin.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });
    expect(await loadSignedIn(sub.id, 0)).toMatchObject({ mustSetUpTwoFactor: true });
    await withTotp(sub);
    expect(await loadSignedIn(sub.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });
    await setRequireTwoFactor(owner, false);
    const other = await makeUser(company.id, "agency_user");
    expect(await loadSignedIn(other.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });
  });
});
