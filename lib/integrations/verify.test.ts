import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { createPrivateIntegration, rotateLater } from "./lifecycle";
import { generatePrivateIntegrationToken } from "./token";
import { flushLastUsedWrites, verifyPrivateIntegrationToken } from "./verify";

const t0 = new Date("2031-05-01T12:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

async function lastUsed(tokenId: string) {
  await flushLastUsedWrites();
  const row = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id: tokenId } });
  return row.lastUsedAt?.toISOString() ?? null;
}

describe("verifyPrivateIntegrationToken", () => {
  it("turns a sub-account token into a Location principal with the integration's scopes", async () => {
    const { company, locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token, integration } = await createPrivateIntegration(
      owner,
      { level: "location", locationId: locations[0]!.id },
      { name: "CRM", scopes: ["contacts.write", "locations.readonly"] },
      t0,
    );
    expect(await verifyPrivateIntegrationToken(token, t0)).toEqual({
      ok: true,
      principal: {
        kind: "private_integration",
        authClass: "Location",
        companyId: company.id,
        locationId: locations[0]!.id,
        scopes: ["locations.readonly", "contacts.write"],
        integrationId: integration.id,
        tokenId: integration.token.id,
      },
    });
  });

  it("gives an agency token a Company principal, and the old token its end during a rotation", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const target = { level: "agency", companyId: company.id } as const;
    const { token, integration } = await createPrivateIntegration(
      owner,
      target,
      { name: "Reports", scopes: ["locations.readonly", "oauth.readonly"] },
      t0,
    );
    await rotateLater(owner, target, integration.id, t0);
    const result = await verifyPrivateIntegrationToken(token, at(1000));
    expect(result).toMatchObject({
      ok: true,
      principal: {
        authClass: "Company",
        companyId: company.id,
        scopes: ["oauth.readonly", "locations.readonly"],
        expiresAt: new Date(t0.getTime() + 7 * 24 * 3600 * 1000),
      },
    });
    expect(result.ok && result.principal.locationId).toBeUndefined();
  });

  it.each([
    ["", "malformed"],
    ["Bearer pit-x", "malformed"],
    ["pit-0123456789abcdef0123456789abcdef", "malformed"],
    ["x".repeat(10_000), "malformed"],
    [generatePrivateIntegrationToken(), "unknown"],
  ])("refuses %j as %s", async (token, reason) => {
    expect(await verifyPrivateIntegrationToken(token)).toEqual({ ok: false, reason });
  });

  it("writes lastUsedAt at most once a minute per token, never in the request's way", async () => {
    const { locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token, integration } = await createPrivateIntegration(
      owner,
      { level: "location", locationId: locations[0]!.id },
      { name: "Poller", scopes: ["contacts.readonly"] },
      t0,
    );
    const id = integration.token.id;
    expect(await lastUsed(id)).toBeNull();
    await Promise.all(Array.from({ length: 20 }, () => verifyPrivateIntegrationToken(token, at(1000))));
    expect(await lastUsed(id)).toBe(at(1000).toISOString());
    await verifyPrivateIntegrationToken(token, at(59_999 + 1000));
    expect(await lastUsed(id)).toBe(at(1000).toISOString());
    await verifyPrivateIntegrationToken(token, at(60_000 + 1000));
    expect(await lastUsed(id)).toBe(at(61_000).toISOString());
  });

  it("does not fail the request when the lastUsedAt write fails", async () => {
    const { locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token } = await createPrivateIntegration(
      owner,
      { level: "location", locationId: locations[0]!.id },
      { name: "Flaky", scopes: ["contacts.readonly"] },
      t0,
    );
    const model = db().privateIntegrationToken;
    const original = model.updateMany;
    model.updateMany = (() => Promise.reject(new Error("database unavailable"))) as unknown as typeof original;
    try {
      expect((await verifyPrivateIntegrationToken(token, at(5 * 60_000))).ok).toBe(true);
      await flushLastUsedWrites();
    } finally {
      model.updateMany = original;
    }
  });
});
