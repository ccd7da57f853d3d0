// Over 250 lines on purpose: the screens' server actions as one table (create, lifecycle, guard
// rails, details) over one seeded agency and one mocked session; split, each part would seed and
// mock it again.

import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { IntegrationDetails } from "@/components/private-integrations/integration-card";
import { menuActions } from "@/components/private-integrations/menu-actions";
import { toAuditItem, toIntegrationItem } from "@/components/private-integrations/serialize";
import { triageFacts } from "@/components/private-integrations/triage-facts";
import type { Actor } from "@/lib/accounts/permissions";
import { listAuditLog } from "@/lib/integrations/audit-log";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { getPrivateIntegration, readMaximumTokenLifetime } from "@/lib/integrations/read";
import { integrationStatus } from "@/lib/integrations/triage";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";

/** The screens' server actions: the session, zod, the gates and the show-once answer. */

let signedIn: Actor | null = null;
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => signedIn,
  getSignedIn: async () => (signedIn ? signedInAs(signedIn) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

// One set of actions serves both screens: a form with a locationId acts on that sub-account.
const actions = await import("./actions");

beforeEach(() => {
  signedIn = null;
});

describe("create", () => {
  it("returns the token once, in data, and the token works", async () => {
    const { owner, locations } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    signedIn = owner;
    const result = await actions.createIntegrationAction(
      {},
      formData({ locationId: locations[0]!.id, name: "Zapier", "scopes[]": ["contacts.write", "locations.readonly"] }),
    );
    expect(result.ok).toBe(true);
    const token = String(result.data?.token);
    expect(token).toMatch(/^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const verified = await verifyPrivateIntegrationToken(token);
    expect(verified.ok && verified.principal.locationId).toBe(locations[0]!.id);
    expect(JSON.stringify(result.values ?? {})).not.toContain(token);
  });

  it.each([
    [{ name: "", "scopes[]": ["locations.readonly"] }, { name: "Enter a name." }],
    [{ name: "Zapier" }, { scopes: "Choose at least one scope." }],
    [{ name: "x".repeat(81), "scopes[]": ["locations.readonly"] }, { name: "Use a name of at most 80 characters." }],
  ])("puts zod's refusal beside the field: %j", async (fields, expected) => {
    const { owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const result = await actions.createIntegrationAction({}, formData(fields));
    expect(result.ok).toBeUndefined();
    expect(result.fieldErrors).toMatchObject(expected);
    expect(result.data).toBeUndefined();
  });

  it("refuses a scope of the other level beside the scopes", async () => {
    const { owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const result = await actions.createIntegrationAction({}, formData({ name: "X", "scopes[]": ["contacts.write"] }));
    expect(result.fieldErrors?.scopes).toContain("contacts.write cannot be given to an agency integration");
  });

  it("refuses without a session, with Labs off, without the permission and for another agency", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 1 });
    const fields = { name: "X", "scopes[]": "locations.readonly" };
    expect((await actions.createIntegrationAction({}, formData(fields))).error).toMatch(/session has ended/);
    signedIn = owner;
    expect((await actions.createIntegrationAction({}, formData(fields))).error).toMatch(/must be enabled in Labs/);

    const other = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const member = await makeUser(other.company.id, "agency_user", { agencyPrivateIntegrations: false });
    signedIn = member;
    expect((await actions.createIntegrationAction({}, formData(fields))).error).toMatch(/Agency private integrations/);

    signedIn = other.owner;
    const cross = await actions.createIntegrationAction({}, formData({ ...fields, locationId: locations[0]!.id }));
    expect(cross.error).toMatch(/no such sub-account in your agency/);
    expect(cross.data).toBeUndefined();
    expect(company.id).not.toBe(other.company.id);
  });
});

describe("lifecycle actions", () => {
  async function setup() {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const owned = { level: "agency", companyId: company.id } as const;
    const { integration, token } = await createPrivateIntegration(owner, owned, {
      name: "Sync",
      scopes: ["locations.readonly"],
    });
    signedIn = owner;
    return { owner, owned, id: integration.id, token };
  }
  const works = async (token: string) => (await verifyPrivateIntegrationToken(token)).ok;

  it("edit keeps the token; rotate later, expire now, cancel, rotate now and delete do what SPEC.md says", async () => {
    const { owner, owned, id, token: t1 } = await setup();
    const saved = await actions.updateIntegrationAction(
      {},
      formData({ integrationId: id, name: "Sync v2", description: "d", "scopes[]": ["users.readonly"] }),
    );
    expect(saved).toMatchObject({ ok: true, message: "Saved “Sync v2”. Its token did not change." });
    expect(saved.data).toBeUndefined();
    expect(await works(t1)).toBe(true);

    const later = await actions.rotateLaterAction({}, formData({ integrationId: id }));
    const t2 = String(later.data?.token);
    expect(later.data?.oldTokenExpiresAt).toEqual(expect.any(String));
    expect([await works(t1), await works(t2)]).toEqual([true, true]);

    expect((await actions.expireNowAction({}, formData({ integrationId: id }))).ok).toBe(true);
    expect([await works(t1), await works(t2)]).toEqual([false, true]);

    const t3 = String((await actions.rotateLaterAction({}, formData({ integrationId: id }))).data?.token);
    expect((await actions.cancelRotationAction({}, formData({ integrationId: id }))).ok).toBe(true);
    expect([await works(t2), await works(t3)]).toEqual([true, false]);

    const t4 = String((await actions.rotateNowAction({}, formData({ integrationId: id }))).data?.token);
    expect([await works(t2), await works(t4)]).toEqual([false, true]);

    // A second rotation while one is in progress is refused with a sentence, not a 500.
    await actions.rotateLaterAction({}, formData({ integrationId: id }));
    const again = await actions.rotateNowAction({}, formData({ integrationId: id }));
    expect(again.error).toMatch(/already in progress/);

    expect((await actions.removeAction({}, formData({ integrationId: id }))).ok).toBe(true);
    expect(await works(t4)).toBe(false);
    await expect(getPrivateIntegration(owner, owned, id)).rejects.toThrow(/does not exist/);

    const labels = (await listAuditLog(owner, owned)).map((e) => toAuditItem(e));
    expect(labels.map((e) => e.label)).toContain("Deleted");
    const everything = JSON.stringify(labels);
    for (const t of [t1, t2, t3, t4]) expect(everything).not.toContain(t);
  });

  it("refuses an integration id of another agency as not found", async () => {
    const { id } = await setup();
    const other = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = other.owner;
    for (const action of [
      actions.rotateLaterAction,
      actions.rotateNowAction,
      actions.expireNowAction,
      actions.cancelRotationAction,
      actions.removeAction,
    ]) {
      const result = await action({}, formData({ integrationId: id }));
      expect(result.error).toMatch(/does not exist here/);
      expect(result.data).toBeUndefined();
    }
  });

  it("refuses a missing integration id beside the field", async () => {
    await setup();
    expect((await actions.removeAction({}, formData({}))).fieldErrors?.integrationId).toBeDefined();
  });
});

describe("guard rails through the forms", () => {
  it("create and edit take Expires, Sub-accounts and Allowed IP addresses; the token does not change", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    signedIn = owner;
    const owned = { level: "agency", companyId: company.id } as const;
    const created = await actions.createIntegrationAction(
      {},
      formData({
        name: "Guarded",
        "scopes[]": ["locations.readonly"],
        expires: "2999-12-31",
        subAccounts: "chosen",
        "subAccountIds[]": [locations[1]!.id],
        allowedIpAddresses: "127.0.0.7\n10.1.0.0/16",
      }),
    );
    expect(created.ok).toBe(true);
    const id = String(created.data?.integrationId);
    const view = await getPrivateIntegration(owner, owned, id);
    expect(view).toMatchObject({ subAccounts: { all: false }, allowedIpAddresses: ["127.0.0.7", "10.1.0.0/16"] });
    expect(view.expiresAt?.toISOString()).toBe("3000-01-01T00:00:00.000Z");

    const edited = await actions.updateIntegrationAction(
      {},
      formData({
        integrationId: id,
        name: "Guarded",
        "scopes[]": ["locations.readonly"],
        expires: "",
        subAccounts: "all",
        allowedIpAddresses: "",
      }),
    );
    expect(edited).toMatchObject({ ok: true, message: "Saved “Guarded”. Its token did not change." });
    const token = String(created.data?.token);
    expect((await verifyPrivateIntegrationToken(token, new Date(), { clientAddress: "192.0.2.1" })).ok).toBe(true);
  });

  it("puts a guard rail's refusal beside its field and keeps what was typed", async () => {
    const { owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const result = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["locations.readonly"], allowedIpAddresses: "300.1.1.1" }),
    );
    expect(result.fieldErrors?.allowedIpAddresses).toMatch(/300\.1\.1\.1/);
    expect(result.values?.allowedIpAddresses).toBe("300.1.1.1");
    const bad = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["locations.readonly"], expires: "soon" }),
    );
    expect(bad.fieldErrors?.expires).toMatch(/YYYY-MM-DD/);
  });

  it("reports every invalid field at once, each beside its field (SPEC.md: not one per submit)", async () => {
    const { owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const result = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["no.such.scope"], expires: "soon", allowedIpAddresses: "300.1.1.1" }),
    );
    expect(result.ok).toBeFalsy();
    expect(Object.keys(result.fieldErrors ?? {}).sort()).toEqual(["allowedIpAddresses", "expires", "scopes"]);
    expect(result.fieldErrors?.scopes).toMatch(/not a known scope/);
    expect(result.fieldErrors?.expires).toMatch(/YYYY-MM-DD/);
    expect(result.fieldErrors?.allowedIpAddresses).toMatch(/300\.1\.1\.1/);
    const past = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["no.such.scope"], expires: "2000-01-01", allowedIpAddresses: "300.1.1.1" }),
    );
    expect(Object.keys(past.fieldErrors ?? {}).sort()).toEqual(["allowedIpAddresses", "expires", "scopes"]);
    expect(past.fieldErrors?.expires).toMatch(/has passed/);
  });

  it("rotate later takes the overlap; another one is refused beside the field", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const owned = { level: "agency", companyId: company.id } as const;
    const { integration } = await createPrivateIntegration(owner, owned, { name: "R", scopes: ["locations.readonly"] });
    const wrong = await actions.rotateLaterAction({}, formData({ integrationId: integration.id, overlapDays: "2" }));
    expect(wrong.fieldErrors?.overlapDays).toMatch(/1, 3, 7, 14, 30 days/);
    const before = Date.now();
    const later = await actions.rotateLaterAction({}, formData({ integrationId: integration.id, overlapDays: "1" }));
    const ends = Date.parse(String(later.data?.oldTokenExpiresAt));
    expect(ends - before).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
    expect(ends - before).toBeLessThan(24 * 60 * 60 * 1000 + 60_000);
  });

  it("Maximum token lifetime: saved, caps what exceeds it, then enforced on create", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const owned = { level: "agency", companyId: company.id } as const;
    await createPrivateIntegration(owner, owned, { name: "Forever", scopes: ["locations.readonly"] });
    // SPEC.md: a maximum that would re-date integrations first says how many and to which date.
    const asked = await actions.setMaximumLifetimeAction({}, formData({ maximumTokenLifetimeDays: "30" }));
    expect(asked.ok).toBeFalsy();
    expect(asked.data).toMatchObject({
      confirm: true,
      wouldCap: 1,
      capTo: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(await readMaximumTokenLifetime(company.id)).toBeNull();
    const saved = await actions.setMaximumLifetimeAction(
      {},
      formData({ maximumTokenLifetimeDays: "30", confirmed: "yes" }),
    );
    expect(saved.ok).toBe(true);
    expect(saved.message).toMatch(
      /^Maximum token lifetime saved: 30 days\. 1 integration now expires on \d{1,2} [A-Z][a-z]{2} \d{4}\.$/,
    );
    const refused = await actions.createIntegrationAction(
      {},
      formData({ name: "N", "scopes[]": ["locations.readonly"], expires: "" }),
    );
    expect(refused.fieldErrors?.expires).toMatch(/Maximum token lifetime is 30 days/);
    const bad = await actions.setMaximumLifetimeAction({}, formData({ maximumTokenLifetimeDays: "0" }));
    expect(bad.fieldErrors?.maximumTokenLifetimeDays).toMatch(/whole days from 1 to 366/);

    const member = await makeUser(company.id, "agency_user", { agencyPrivateIntegrations: false });
    signedIn = member;
    expect((await actions.setMaximumLifetimeAction({}, formData({ maximumTokenLifetimeDays: "" }))).error).toMatch(
      /Agency private integrations/,
    );
  });
});

describe("the integration details", () => {
  it("flags a token of 90 days or more, and shows when a rotating old token stops working", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const owned = { level: "agency", companyId: company.id } as const;
    const created = new Date("2030-01-01T10:00:00Z");
    const { integration } = await createPrivateIntegration(
      owner,
      owned,
      { name: "Old", scopes: ["locations.readonly"] },
      created,
    );
    const render = (now: Date) =>
      getPrivateIntegration(owner, owned, integration.id, now).then((view) =>
        renderToStaticMarkup(
          createElement(IntegrationDetails, {
            item: toIntegrationItem(view),
            now: now.toISOString(),
            onAction: () => {},
          }),
        ),
      );
    expect(await render(new Date("2030-03-31T09:00:00Z"))).not.toContain("Rotation recommended");
    expect(await render(new Date("2030-04-08T10:00:00Z"))).toContain("Rotation recommended: created 97 days ago");
    const { rotateLater } = await import("@/lib/integrations/lifecycle");
    await rotateLater(owner, owned, integration.id, new Date("2030-04-21T14:05:00Z"));
    const html = await render(new Date("2030-04-21T15:00:00Z"));
    expect(html).toContain("stops working on");
    expect(html).toContain("28 Apr 2030, 14:05 UTC");
    // Its panel offers both, and says whether the old token was used since.
    expect(html).toMatch(/<button[^>]*>Expire Now<\/button>/);
    expect(html).toMatch(/<button[^>]*>Cancel rotation<\/button>/);
    expect(html).toContain("Old token not used since the rotation.");
    expect(html).not.toContain("Rotate and expire this token later");
    expect(html).not.toContain("Rotation recommended");
  });

  it("shows Expires in N days / Expired, the chosen sub-accounts, the allowed addresses and Never used", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const owned = { level: "agency", companyId: company.id } as const;
    const created = new Date("2030-01-01T10:00:00Z");
    const { integration } = await createPrivateIntegration(
      owner,
      owned,
      {
        name: "Guarded",
        scopes: ["locations.readonly"],
        expires: "2030-01-10",
        subAccounts: "chosen",
        subAccountIds: [locations[1]!.id],
        allowedIpAddresses: "127.0.0.9",
      },
      created,
    );
    const render = (now: Date) =>
      getPrivateIntegration(owner, owned, integration.id, now).then((view) =>
        renderToStaticMarkup(
          createElement(IntegrationDetails, { item: toIntegrationItem(view), now: now.toISOString() }),
        ),
      );
    // The words, without the markup (the relative time is an element of its own).
    const words = (html: string) => html.replace(/<[^>]+>/g, "");
    const before = await render(created);
    // Expires 2030-01-10, nine whole UTC days after 2030-01-01 (SPEC.md: `in N days`), written as the screens write dates.
    expect(words(before)).toContain("After 10 Jan 2030 (in 9 days");
    expect(before).toContain(locations[1]!.name);
    expect(before).toContain("127.0.0.9");
    expect(before).toContain("Never used");
    const after = await render(new Date("2030-01-11T00:00:00Z"));
    expect(after).toContain("Expired");
    expect(words(after)).toContain("Expired after 10 Jan 2030");
    expect(words(after)).not.toContain("(in 9 days");
  });

  it("a token reported as leaked: Revoked with the reason; only Rotate and expire this token now (and Edit, Delete) offered", async () => {
    const { company, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const owned = { level: "agency", companyId: company.id } as const;
    const { integration, token } = await createPrivateIntegration(owner, owned, {
      name: "Pasted",
      scopes: ["locations.readonly"],
    });
    const { revokeLeakedCredentials } = await import("@/lib/credentials/revoke");
    await revokeLeakedCredentials([token], "Reported as leaked by GitHub secret scanning.");
    const view = await getPrivateIntegration(owner, owned, integration.id);
    const item = toIntegrationItem(view);
    const html = renderToStaticMarkup(createElement(IntegrationDetails, { item, now: new Date().toISOString() }));
    expect(html).toContain(">Revoked<");
    expect(html).not.toContain(">Active<");
    expect(html).toContain("Reported as leaked by GitHub secret scanning.");
    const menu = menuActions(
      item,
      integrationStatus(triageFacts(item), new Date()),
      () => {},
      () => {},
    );
    expect(menu.map((a) => a.label)).toEqual(["Rotate and expire this token now", "Edit", "Delete"]);
    const audit = (await listAuditLog(owner, owned, { integrationId: integration.id })).map(toAuditItem);
    expect(audit[0]).toMatchObject({ label: "Revoked: reported as leaked", actor: null });
    expect(audit[0]?.details).toContain("Reported as leaked by GitHub secret scanning.");
  });
});
