// Over 250 lines on purpose: SPEC.md's lifecycle table, one describe per row, in the table's order,
// with one clock and setup helper.
import { describe, expect, it } from "vitest";
import { setLabsFeature } from "@/lib/accounts/labs";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import type { IntegrationOwner } from "./access";
import { listAuditLog } from "./audit-log";
import {
  cancelRotation,
  createPrivateIntegration,
  expireNow,
  remove,
  rotateLater,
  rotateNow,
  updatePrivateIntegration,
} from "./lifecycle";
import { getPrivateIntegration, listPrivateIntegrations } from "./read";
import { verifyPrivateIntegrationToken } from "./verify";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const t0 = new Date("2030-03-01T09:00:00.000Z");

/** An agency with Labs on, its owner, and one integration at the chosen level created at t0. */
async function agencyWithIntegration(level: "agency" | "location" = "location") {
  const { company, locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const target: IntegrationOwner =
    level === "agency"
      ? { level: "agency", companyId: company.id }
      : { level: "location", locationId: locations[0]!.id };
  const scopes =
    level === "agency" ? ["locations.readonly", "oauth.readonly"] : ["contacts.write", "locations.readonly"];
  const created = await makeIntegration(
    { owner },
    { owner: target, name: "Zapier sync", description: "Pushes leads", scopes, now: t0 },
  );
  return { company, locations, owner, target, integration: created.integration, first: created.token };
}

/** Which of `tokens` open the API at `now`. */
async function working(tokens: Record<string, string>, now: Date): Promise<string[]> {
  const names: string[] = [];
  for (const [name, token] of Object.entries(tokens)) {
    if ((await verifyPrivateIntegrationToken(token, now)).ok) names.push(name);
  }
  return names;
}

async function reason(token: string, now: Date) {
  const result = await verifyPrivateIntegrationToken(token, now);
  return result.ok ? "ok" : result.reason;
}

async function actions(actor: Actor, target: IntegrationOwner) {
  return (await listAuditLog(actor, target)).map((e) => e.action).reverse();
}

describe("create", () => {
  it("issues one token shown once, stores only its hash, and audits it", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    expect(first).toMatch(/^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(integration).toMatchObject({
      name: "Zapier sync",
      description: "Pushes leads",
      scopes: ["locations.readonly", "contacts.write"],
      status: "active",
      previousToken: null,
      createdBy: { id: owner.id },
    });
    expect(integration.token.hint).toBe(`pit-…${first.slice(-4)}`);
    expect(JSON.stringify(await getPrivateIntegration(owner, target, integration.id, t0))).not.toContain(first);
    expect(await working({ first }, t0)).toEqual(["first"]);
    expect(await actions(owner, target)).toEqual(["private_integration_created"]);
  });

  it("offers only the scopes valid at its level, with errors beside the field", async () => {
    const { company, locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const agency: IntegrationOwner = { level: "agency", companyId: company.id };
    const location: IntegrationOwner = { level: "location", locationId: locations[0]!.id };
    const base = { name: "X", description: "" };
    await expect(
      createPrivateIntegration(owner, agency, { ...base, scopes: ["contacts.write"] }),
    ).rejects.toMatchObject({ kind: "invalid", field: "scopes", message: expect.stringContaining("contacts.write") });
    await expect(createPrivateIntegration(owner, location, { ...base, scopes: ["oauth.write"] })).rejects.toMatchObject(
      {
        kind: "invalid",
        field: "scopes",
      },
    );
    await expect(createPrivateIntegration(owner, location, { ...base, scopes: ["nope.read"] })).rejects.toMatchObject({
      field: "scopes",
      message: expect.stringContaining("not a known scope"),
    });
    await expect(createPrivateIntegration(owner, location, { ...base, scopes: [] })).rejects.toMatchObject({
      field: "scopes",
      message: "Choose at least one scope.",
    });
    await expect(
      createPrivateIntegration(owner, location, { name: "   ", description: "", scopes: ["contacts.write"] }),
    ).rejects.toMatchObject({ field: "name", message: "Enter a name." });
    await expect(
      createPrivateIntegration(owner, location, { name: "x".repeat(81), scopes: ["contacts.write"] }),
    ).rejects.toMatchObject({ field: "name" });
    const both = await createPrivateIntegration(owner, agency, {
      ...base,
      scopes: ["users.write", "locations.write", "users.write"],
    });
    expect(both.integration.scopes).toEqual(["locations.write", "users.write"]);
  });
});

describe("active → `Rotate and expire this token later`, confirmed → rotating", () => {
  it("shows a new token once; old and new both work, the old one until exactly 7 days later", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const rotatedAt = later(t0, 10 * DAY);
    const { token: second, integration: view } = await rotateLater(owner, target, integration.id, rotatedAt);
    expect(second).not.toBe(first);
    expect(view.status).toBe("rotating");
    expect(view.token.hint).toBe(`pit-…${second.slice(-4)}`);
    expect(view.previousToken).toMatchObject({ hint: `pit-…${first.slice(-4)}` });
    expect(view.previousToken?.expiresAt.toISOString()).toBe(new Date(rotatedAt.getTime() + 7 * DAY).toISOString());
    expect(await working({ first, second }, rotatedAt)).toEqual(["first", "second"]);
    expect(await actions(owner, target)).toEqual(["private_integration_created", "private_integration_rotated_later"]);
    const [entry] = await listAuditLog(owner, target);
    expect(entry?.details).toMatchObject({ oldTokenExpiresAt: "2030-03-18T09:00:00.000Z" });
  });

  it("refuses a second rotation, or rotating now, while one is in progress", async () => {
    const { owner, target, integration } = await agencyWithIntegration();
    await rotateLater(owner, target, integration.id, later(t0, DAY));
    await expect(rotateLater(owner, target, integration.id, later(t0, 2 * DAY))).rejects.toMatchObject({
      kind: "conflict",
    });
    await expect(rotateNow(owner, target, integration.id, later(t0, 2 * DAY))).rejects.toMatchObject({
      kind: "conflict",
      message: expect.stringContaining("Expire Now"),
    });
  });

  it("never leaves more than two live tokens when rotations race", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const results = await Promise.allSettled([
      rotateLater(owner, target, integration.id, later(t0, DAY)),
      rotateLater(owner, target, integration.id, later(t0, DAY)),
      rotateNow(owner, target, integration.id, later(t0, DAY)),
      rotateLater(owner, target, integration.id, later(t0, DAY)),
    ]);
    const issued = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.token] : []));
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toMatchObject({ kind: "conflict" });
    }
    expect(issued.length).toBeGreaterThanOrEqual(1);
    const live = await working(Object.fromEntries([first, ...issued].map((t, i) => [String(i), t])), later(t0, DAY));
    expect(live.length).toBeGreaterThanOrEqual(1);
    expect(live.length).toBeLessThanOrEqual(2);
    const slots = await db().privateIntegrationToken.count({
      where: { integrationId: integration.id, slot: { not: null } },
    });
    expect(slots).toBeLessThanOrEqual(2);
  });
});

describe("rotating → 7 days pass → active", () => {
  it("keeps both tokens working at 6 days 23 h and only the new one at 7 days", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, t0);
    expect(await working({ first, second }, later(t0, 6 * DAY + 23 * HOUR))).toEqual(["first", "second"]);
    expect(await working({ first, second }, later(t0, 7 * DAY - 1))).toEqual(["first", "second"]);
    expect(await working({ first, second }, later(t0, 7 * DAY))).toEqual(["second"]);
    expect(await reason(first, later(t0, 7 * DAY))).toBe("expired");
    expect(await working({ first, second }, later(t0, 400 * DAY))).toEqual(["second"]);
  });

  it("shows the integration as active again, with no job needed, and lets it rotate again", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, t0);
    const [view] = await listPrivateIntegrations(owner, target, later(t0, 7 * DAY));
    expect(view).toMatchObject({ status: "active", previousToken: null });
    const { token: third } = await rotateLater(owner, target, integration.id, later(t0, 8 * DAY));
    expect(await working({ first, second, third }, later(t0, 8 * DAY))).toEqual(["second", "third"]);
    expect(await working({ first, second, third }, later(t0, 15 * DAY))).toEqual(["third"]);
  });
});

describe("rotating → `Expire Now`, confirmed → active", () => {
  it("stops the old token at once and keeps the new one", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, later(t0, DAY));
    const view = await expireNow(owner, target, integration.id, later(t0, 2 * DAY));
    expect(view).toMatchObject({ status: "active", previousToken: null });
    expect(await working({ first, second }, later(t0, 2 * DAY))).toEqual(["second"]);
    expect(await reason(first, later(t0, 2 * DAY))).toBe("revoked");
    expect((await actions(owner, target)).at(-1)).toBe("private_integration_old_token_expired");
  });

  it("refuses when no rotation is in progress, including after the 7 days", async () => {
    const { owner, target, integration } = await agencyWithIntegration();
    await expect(expireNow(owner, target, integration.id, t0)).rejects.toMatchObject({ kind: "conflict" });
    await rotateLater(owner, target, integration.id, t0);
    await expect(expireNow(owner, target, integration.id, later(t0, 7 * DAY))).rejects.toMatchObject({
      kind: "conflict",
    });
  });
});

describe("rotating → `Cancel rotation`, confirmed → active", () => {
  it("stops the new token at once and keeps the old one, with no expiry", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, later(t0, DAY));
    const view = await cancelRotation(owner, target, integration.id, later(t0, 3 * DAY));
    expect(view).toMatchObject({ status: "active", previousToken: null });
    expect(view.token.hint).toBe(`pit-…${first.slice(-4)}`);
    expect(await working({ first, second }, later(t0, 3 * DAY))).toEqual(["first"]);
    expect(await reason(second, later(t0, 3 * DAY))).toBe("revoked");
    expect(await working({ first, second }, later(t0, 30 * DAY))).toEqual(["first"]);
    expect((await actions(owner, target)).at(-1)).toBe("private_integration_rotation_cancelled");
    const { token: third } = await rotateLater(owner, target, integration.id, later(t0, 31 * DAY));
    expect(await working({ first, second, third }, later(t0, 31 * DAY))).toEqual(["first", "third"]);
  });

  it("refuses when no rotation is in progress", async () => {
    const { owner, target, integration } = await agencyWithIntegration();
    await expect(cancelRotation(owner, target, integration.id, t0)).rejects.toMatchObject({ kind: "conflict" });
  });
});

describe("active → `Rotate and expire this token now`, confirmed → active", () => {
  it("shows a new token once and stops the old one at once", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second, integration: view } = await rotateNow(owner, target, integration.id, later(t0, DAY));
    expect(view).toMatchObject({ status: "active", previousToken: null });
    expect(await working({ first, second }, later(t0, DAY))).toEqual(["second"]);
    expect(await reason(first, later(t0, DAY))).toBe("revoked");
    expect((await actions(owner, target)).at(-1)).toBe("private_integration_rotated_now");
  });

  it("works after an earlier rotation has run its 7 days", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, t0);
    const { token: third } = await rotateNow(owner, target, integration.id, later(t0, 8 * DAY));
    expect(await working({ first, second, third }, later(t0, 8 * DAY))).toEqual(["third"]);
  });
});

describe("active → `Edit` name, description or scopes → active", () => {
  it("keeps the token, which works with the new scopes at once", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const before = await verifyPrivateIntegrationToken(first, t0);
    expect(before.ok && before.principal.scopes).toEqual(["locations.readonly", "contacts.write"]);
    const view = await updatePrivateIntegration(
      owner,
      target,
      integration.id,
      { name: "Renamed", description: "New text", scopes: ["contacts.readonly"] },
      later(t0, HOUR),
    );
    expect(view).toMatchObject({ name: "Renamed", description: "New text", scopes: ["contacts.readonly"] });
    expect(view.token.hint).toBe(integration.token.hint);
    const after = await verifyPrivateIntegrationToken(first, later(t0, HOUR));
    expect(after.ok && after.principal.scopes).toEqual(["contacts.readonly"]);
    const [entry] = await listAuditLog(owner, target);
    expect(entry).toMatchObject({
      action: "private_integration_updated",
      integrationName: "Renamed",
      details: { renamedFrom: "Zapier sync", scopesAdded: ["contacts.readonly"] },
    });
  });

  it("applies during a rotation to both tokens, and rejects scopes of the other level", async () => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const { token: second } = await rotateLater(owner, target, integration.id, t0);
    await updatePrivateIntegration(
      owner,
      target,
      integration.id,
      { name: "N", scopes: ["users.readonly"] },
      later(t0, HOUR),
    );
    for (const token of [first, second]) {
      const result = await verifyPrivateIntegrationToken(token, later(t0, HOUR));
      expect(result.ok && result.principal.scopes).toEqual(["users.readonly"]);
    }
    await expect(
      updatePrivateIntegration(owner, target, integration.id, { name: "N", scopes: ["oauth.write"] }),
    ).rejects.toMatchObject({ field: "scopes" });
  });
});

describe("any → `Delete`, confirmed → deleted", () => {
  it.each(["active", "rotating"] as const)("stops every token at once (%s)", async (state) => {
    const { owner, target, integration, first } = await agencyWithIntegration();
    const tokens: Record<string, string> = { first };
    if (state === "rotating") tokens.second = (await rotateLater(owner, target, integration.id, t0)).token;
    expect((await working(tokens, later(t0, HOUR))).length).toBe(state === "rotating" ? 2 : 1);
    await remove(owner, target, integration.id, later(t0, HOUR));
    expect(await working(tokens, later(t0, HOUR))).toEqual([]);
    expect(await reason(first, later(t0, HOUR))).toBe("unknown");
    expect(await listPrivateIntegrations(owner, target, later(t0, HOUR))).toEqual([]);
    expect(await db().privateIntegrationToken.count({ where: { integrationId: integration.id } })).toBe(0);
    const [entry] = await listAuditLog(owner, target);
    expect(entry).toMatchObject({ action: "private_integration_deleted", integrationName: "Zapier sync" });
    await expect(rotateNow(owner, target, integration.id)).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("the 90-day rotation flag", () => {
  it("flags a token from its 90th day and clears once it is rotated", async () => {
    const { owner, target, integration } = await agencyWithIntegration();
    const [young] = await listPrivateIntegrations(owner, target, later(t0, 90 * DAY - 1));
    expect(young?.token).toMatchObject({ rotationDue: false, ageDays: 89 });
    const [old] = await listPrivateIntegrations(owner, target, later(t0, 90 * DAY));
    expect(old?.token).toMatchObject({ rotationDue: true, ageDays: 90 });
    await rotateNow(owner, target, integration.id, later(t0, 95 * DAY));
    const [fresh] = await listPrivateIntegrations(owner, target, later(t0, 96 * DAY));
    expect(fresh?.token).toMatchObject({ rotationDue: false, ageDays: 1 });
  });
});

describe("levels and Labs", () => {
  it("keeps agency and sub-account integrations apart, with the right token class", async () => {
    const agencyLevel = await agencyWithIntegration("agency");
    const agencyList = await listPrivateIntegrations(agencyLevel.owner, agencyLevel.target);
    expect(agencyList.map((i) => i.level)).toEqual(["agency"]);
    const location: IntegrationOwner = { level: "location", locationId: agencyLevel.locations[0]!.id };
    expect(await listPrivateIntegrations(agencyLevel.owner, location)).toEqual([]);
    await expect(rotateNow(agencyLevel.owner, location, agencyLevel.integration.id)).rejects.toMatchObject({
      kind: "not_found",
    });
    const result = await verifyPrivateIntegrationToken(agencyLevel.first);
    expect(result).toMatchObject({
      ok: true,
      principal: { authClass: "Company", companyId: agencyLevel.company.id, kind: "private_integration" },
    });
    expect(result.ok && "locationId" in result.principal).toBe(false);
  });

  it("keeps existing tokens working when Labs is turned off, but nothing can be managed", async () => {
    const { company, owner, target, integration, first } = await agencyWithIntegration();
    await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: false });
    expect(await working({ first }, t0)).toEqual(["first"]);
    await expect(listPrivateIntegrations(owner, target)).rejects.toMatchObject({
      kind: "forbidden",
      message: expect.stringContaining("Labs"),
    });
    await expect(rotateNow(owner, target, integration.id)).rejects.toMatchObject({ kind: "forbidden" });
  });
});
