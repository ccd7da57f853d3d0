// Over 250 lines on purpose: the guard rails through Create, Edit, Rotate later and the Maximum
// token lifetime, one describe per action, with one clock and agency helper.
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import type { IntegrationOwner } from "./access";
import { listAuditLog } from "./audit-log";
import { parseExpiresDate } from "./guard-rails";
import {
  createPrivateIntegration,
  expiredRotationMessage,
  rotateLater,
  rotateNow,
  updatePrivateIntegration,
} from "./lifecycle";
import { setMaximumTokenLifetime } from "./maximum-lifetime";
import { getPrivateIntegration, readMaximumTokenLifetime } from "./read";
import type { PrivateIntegrationInput } from "./schemas";
import { verifyPrivateIntegrationToken } from "./verify";

/** The guard rails through Create, Edit, Rotate later and the agency's Maximum token lifetime; the clock is a parameter. */

const DAY = 24 * 60 * 60 * 1000;
const t0 = new Date("2032-04-10T15:00:00.000Z");

async function agency() {
  const a = await makeAgency({ locations: 3, privateIntegrationsLab: true });
  const agencyOwner: IntegrationOwner = { level: "agency", companyId: a.company.id };
  const locationOwner: IntegrationOwner = { level: "location", locationId: a.locations[0]!.id };
  return { ...a, agencyOwner, locationOwner };
}

const base = { name: "Guarded", scopes: ["locations.readonly"] };

describe("Create with guard rails", () => {
  it("writes every guard rail and shows them in the view; empty fields are the defaults", async () => {
    const a = await agency();
    const { integration, token } = await createPrivateIntegration(
      a.owner,
      a.agencyOwner,
      {
        ...base,
        expires: "2032-05-01",
        subAccounts: "chosen",
        subAccountIds: [a.locations[1]!.id],
        allowedIpAddresses: "127.0.0.2\n10.0.0.0/8",
      },
      t0,
    );
    expect(integration.expiresAt).toEqual(parseExpiresDate("2032-05-01"));
    expect(integration.expiry).toEqual({ kind: "expires", days: 21 });
    expect(integration.subAccounts).toEqual({
      all: false,
      chosen: [{ id: a.locations[1]!.id, name: a.locations[1]!.name }],
    });
    expect(integration.allowedIpAddresses).toEqual(["127.0.0.2", "10.0.0.0/8"]);
    expect(integration.lastUsedAddress).toBeNull();
    expect((await verifyPrivateIntegrationToken(token, t0, { clientAddress: "127.0.0.2" })).ok).toBe(true);
    expect((await verifyPrivateIntegrationToken(token, t0, { clientAddress: "127.0.0.3" })).ok).toBe(false);

    const plain = await createPrivateIntegration(
      a.owner,
      a.agencyOwner,
      { ...base, expires: "", allowedIpAddresses: "" },
      t0,
    );
    expect(plain.integration).toMatchObject({ expiresAt: null, subAccounts: { all: true }, allowedIpAddresses: [] });

    const [entry] = await listAuditLog(a.owner, a.agencyOwner, { integrationId: integration.id });
    expect(entry!.details).toMatchObject({
      expires: "2032-05-01",
      subAccounts: [a.locations[1]!.id],
      allowedIpAddresses: ["127.0.0.2", "10.0.0.0/8"],
    });
  });

  it.each<[string, Partial<PrivateIntegrationInput>, string, RegExp]>([
    ["a malformed date", { expires: "01/05/2032" }, "expires", /YYYY-MM-DD/],
    ["a date that has passed", { expires: "2032-04-09" }, "expires", /has passed: choose 2032-04-10 or later/],
    ["a bad address", { allowedIpAddresses: "127.0.0.1\nnot-an-address" }, "allowedIpAddresses", /not-an-address/],
    ["no chosen sub-account", { subAccounts: "chosen", subAccountIds: [] }, "subAccounts", /at least one/],
  ])("refuses %s beside its field", async (_name, fields, field, message) => {
    const a = await agency();
    await expect(createPrivateIntegration(a.owner, a.agencyOwner, { ...base, ...fields }, t0)).rejects.toMatchObject({
      kind: "invalid",
      field,
      message: expect.stringMatching(message),
    });
  });

  it("refuses chosen sub-accounts for a sub-account integration and another agency's sub-account", async () => {
    const a = await agency();
    const other = await makeAgency({ locations: 1 });
    await expect(
      createPrivateIntegration(
        a.owner,
        a.locationOwner,
        { ...base, subAccounts: "chosen", subAccountIds: [a.locations[0]!.id] },
        t0,
      ),
    ).rejects.toMatchObject({ field: "subAccounts", message: expect.stringMatching(/only for agency integrations/) });
    await expect(
      createPrivateIntegration(
        a.owner,
        a.agencyOwner,
        { ...base, subAccounts: "chosen", subAccountIds: [other.locations[0]!.id] },
        t0,
      ),
    ).rejects.toMatchObject({ field: "subAccounts" });
    expect(await db().privateIntegration.count({ where: { companyId: a.company.id } })).toBe(0);
  });
});

describe("Edit changes the guard rails, never the token", () => {
  it("changes each one, keeps the token, audits what changed; fields left out keep what is stored", async () => {
    const a = await agency();
    const { integration, token } = await makeIntegration(a, { ...base, now: t0 });
    const edited = await updatePrivateIntegration(
      a.owner,
      a.agencyOwner,
      integration.id,
      {
        ...base,
        expires: "2032-04-20",
        subAccounts: "chosen",
        subAccountIds: [a.locations[2]!.id],
        allowedIpAddresses: "::1",
      },
      t0,
    );
    expect(edited.token.hint).toBe(integration.token.hint);
    expect(edited).toMatchObject({ expiry: { kind: "expires", days: 10 }, allowedIpAddresses: ["::1"] });
    expect((await verifyPrivateIntegrationToken(token, t0, { clientAddress: "::1" })).ok).toBe(true);
    const [entry] = await listAuditLog(a.owner, a.agencyOwner, { integrationId: integration.id });
    expect(entry!.details).toMatchObject({
      guardRailsChanged: ["expires", "subAccounts", "allowedIpAddresses"],
      expires: "2032-04-20",
    });

    // Renaming only: the form's other fields left out keep what is stored.
    const renamed = await updatePrivateIntegration(
      a.owner,
      a.agencyOwner,
      integration.id,
      { ...base, name: "Renamed" },
      later(t0, DAY),
    );
    expect(renamed).toMatchObject({ name: "Renamed", allowedIpAddresses: ["::1"], subAccounts: { all: false } });
    expect(renamed.expiresAt).toEqual(edited.expiresAt);

    const cleared = await updatePrivateIntegration(
      a.owner,
      a.agencyOwner,
      integration.id,
      { ...base, expires: "", subAccounts: "all", allowedIpAddresses: "" },
      later(t0, DAY),
    );
    expect(cleared).toMatchObject({ expiresAt: null, subAccounts: { all: true }, allowedIpAddresses: [] });
    expect((await verifyPrivateIntegrationToken(token, later(t0, 30 * DAY), { clientAddress: "127.9.9.9" })).ok).toBe(
      true,
    );
  });
});

describe("Maximum token lifetime", () => {
  // Today is 2032-04-10; a maximum of 30 days allows up to 2032-05-10.
  it.each<[string, string, true | RegExp]>([
    ["empty (never)", "", /Maximum token lifetime is 30 days: choose an Expires date on or before 2032-05-10/],
    ["within", "2032-05-10", true],
    ["past the maximum", "2032-05-11", /on or before 2032-05-10, or ask an agency admin to raise the maximum/],
  ])("create with Expires %s", async (_name, expires, outcome) => {
    const a = await agency();
    await setMaximumTokenLifetime(a.owner, "30", t0);
    for (const owner of [a.agencyOwner, a.locationOwner]) {
      const call = createPrivateIntegration(
        a.owner,
        owner,
        { ...base, scopes: owner.level === "agency" ? base.scopes : ["contacts.write"], expires },
        t0,
      );
      if (outcome === true) await expect(call).resolves.toBeDefined();
      else await expect(call).rejects.toMatchObject({ field: "expires", message: expect.stringMatching(outcome) });
    }
  });

  it("setting or lowering it caps every integration of the agency and its sub-accounts, audited", async () => {
    const a = await agency();
    const never = await makeIntegration(a, { ...base, now: t0 });
    const soon = await makeIntegration(a, { ...base, expires: "2032-04-12", now: t0 });
    const sub = await makeIntegration(a, { owner: a.locationOwner, ...base, scopes: ["contacts.write"], now: t0 });
    const other = await agency();
    const elsewhere = await makeIntegration(other, { ...base, now: t0 });

    expect(await setMaximumTokenLifetime(a.owner, "7", t0)).toEqual({
      maximumDays: 7,
      capped: 2,
      cappedTo: "2032-04-17",
    });
    expect(await readMaximumTokenLifetime(a.company.id)).toBe(7);
    const view = (id: string, owner: IntegrationOwner = a.agencyOwner) => getPrivateIntegration(a.owner, owner, id, t0);
    expect((await view(never.integration.id)).expiresAt).toEqual(parseExpiresDate("2032-04-17"));
    expect((await view(soon.integration.id)).expiresAt).toEqual(parseExpiresDate("2032-04-12"));
    expect((await view(sub.integration.id, a.locationOwner)).expiresAt).toEqual(parseExpiresDate("2032-04-17"));
    expect(
      (await getPrivateIntegration(other.owner, other.agencyOwner, elsewhere.integration.id, t0)).expiresAt,
    ).toBeNull();
    // Nothing stops at once; the capped tokens stop after the date.
    expect((await verifyPrivateIntegrationToken(never.token, later(t0, DAY))).ok).toBe(true);
    expect((await verifyPrivateIntegrationToken(never.token, parseExpiresDate("2032-04-17")!)).ok).toBe(false);

    const [entry] = await listAuditLog(a.owner, a.agencyOwner);
    expect(entry).toMatchObject({
      action: "private_integration_maximum_lifetime_changed",
      details: { from: null, to: 7, capped: 2, cappedTo: "2032-04-17" },
    });

    expect(await setMaximumTokenLifetime(a.owner, "", t0)).toEqual({ maximumDays: null, capped: 0, cappedTo: null });
    expect((await view(never.integration.id)).expiresAt).toEqual(parseExpiresDate("2032-04-17"));
  });

  it.each(["0", "367", "1.5", "-3", "ten"])("refuses %j beside the field", async (input) => {
    const a = await agency();
    await expect(setMaximumTokenLifetime(a.owner, input, t0)).rejects.toMatchObject({
      field: "maximumTokenLifetimeDays",
    });
  });

  it("needs the agency permission", async () => {
    const a = await agency();
    const { makeUser } = await import("@/lib/testing/fixtures");
    const member = await makeUser(a.company.id, "agency_user", { agencyPrivateIntegrations: false });
    await expect(setMaximumTokenLifetime(member, "30", t0)).rejects.toMatchObject({ kind: "forbidden" });
    expect(await readMaximumTokenLifetime(a.company.id)).toBeNull();
  });
});

describe("Rotate and expire this token later: the chosen overlap", () => {
  it.each([1, 3, 7, 14, 30] as const)("%i days: the old token works until then and not after", async (days) => {
    const a = await agency();
    const { integration, token: old } = await makeIntegration(a, { ...base, now: t0 });
    const { integration: rotating } = await rotateLater(a.owner, a.agencyOwner, integration.id, t0, days);
    expect(rotating.previousToken?.expiresAt).toEqual(later(t0, days * DAY));
    expect((await verifyPrivateIntegrationToken(old, later(t0, days * DAY - 1))).ok).toBe(true);
    expect((await verifyPrivateIntegrationToken(old, later(t0, days * DAY))).ok).toBe(false);
    const [entry] = await listAuditLog(a.owner, a.agencyOwner, { integrationId: integration.id });
    expect(entry!.details).toMatchObject({ overlapDays: days });
  });
});

describe("An expired integration is not rotated (SPEC.md: extend it first)", () => {
  it("refuses both rotations with a message that says to extend the expiry; after Extend expiry it rotates", async () => {
    const a = await agency();
    const { integration } = await makeIntegration(a, { ...base, expires: "2032-04-12", now: t0 });
    const afterExpiry = later(t0, 3 * DAY);
    expect((await getPrivateIntegration(a.owner, a.agencyOwner, integration.id, afterExpiry)).expiry).toEqual({
      kind: "expired",
    });
    for (const rotate of [rotateLater, rotateNow]) {
      await expect(rotate(a.owner, a.agencyOwner, integration.id, afterExpiry)).rejects.toMatchObject({
        name: "Refusal",
        kind: "conflict",
        message: expiredRotationMessage,
      });
    }
    expect(expiredRotationMessage).toMatch(/extend its expiry first/);
    // Nothing was minted or audited by the refusals.
    const rotations = (await listAuditLog(a.owner, a.agencyOwner, { integrationId: integration.id })).filter((e) =>
      e.action.startsWith("private_integration_rotated"),
    );
    expect(rotations).toEqual([]);

    await updatePrivateIntegration(
      a.owner,
      a.agencyOwner,
      integration.id,
      { ...base, expires: "2032-05-01" },
      afterExpiry,
    );
    const rotated = await rotateNow(a.owner, a.agencyOwner, integration.id, afterExpiry);
    expect((await verifyPrivateIntegrationToken(rotated.token, afterExpiry)).ok).toBe(true);
  });
});
