import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { loadSignedIn } from "./users";

/** `loadSignedIn`, read on every signed-in request in one statement: what it answers, case by case. */

describe("loadSignedIn: who a session belongs to", () => {
  it("answers the person as an actor, their sub-accounts in order, while the session's version holds", async () => {
    const { company, locations } = await makeAgency({ locations: 3 });
    const chosen = [locations[2]!.id, locations[0]!.id];
    const person = await makeUser(company.id, "account_user", {
      locationIds: chosen,
      locationPrivateIntegrations: true,
    });
    expect(await loadSignedIn(person.id, 0)).toEqual({
      actor: { ...person, locationIds: [...chosen].sort() },
      mustChangePassword: false,
      mustSetUpTwoFactor: false,
    });
    const agency = await makeUser(company.id, "agency_admin", { agencyPrivateIntegrations: true });
    expect((await loadSignedIn(agency.id, 0))?.actor).toEqual(agency);

    expect(await loadSignedIn(person.id, 1)).toBeNull();
    await db().user.update({ where: { id: person.id }, data: { sessionVersion: 1, mustChangePassword: true } });
    expect(await loadSignedIn(person.id, 0)).toBeNull();
    expect(await loadSignedIn(person.id, 1)).toMatchObject({ mustChangePassword: true });
    await db().user.update({ where: { id: person.id }, data: { removedAt: new Date() } });
    expect(await loadSignedIn(person.id, 1)).toBeNull();
    expect(await loadSignedIn("no-such-person", 0)).toBeNull();
  });

  it("asks for a second factor where the agency requires one: a confirmed authenticator app or a passkey counts", async () => {
    const { company } = await makeAgency({ locations: 0 });
    await db().company.update({ where: { id: company.id }, data: { requireTwoFactor: true } });
    const person = await makeUser(company.id, "agency_user");
    expect(await loadSignedIn(person.id, 0)).toMatchObject({ mustSetUpTwoFactor: true });

    // An authenticator app waiting for its first code is no second factor yet.
    await db().totpFactor.create({ data: { userId: person.id, secretEncrypted: "sealed" } });
    expect(await loadSignedIn(person.id, 0)).toMatchObject({ mustSetUpTwoFactor: true });
    await db().totpFactor.update({ where: { userId: person.id }, data: { confirmedAt: new Date() } });
    expect(await loadSignedIn(person.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });

    const withPasskey = await makeUser(company.id, "agency_user");
    await db().passkey.create({
      data: { id: `pk-${withPasskey.id}`, userId: withPasskey.id, name: "Laptop", publicKey: Buffer.from([1, 2, 3]) },
    });
    expect(await loadSignedIn(withPasskey.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });

    await db().company.update({ where: { id: company.id }, data: { requireTwoFactor: false } });
    const other = await makeUser(company.id, "agency_user");
    expect(await loadSignedIn(other.id, 0)).toMatchObject({ mustSetUpTwoFactor: false });
  });
});
