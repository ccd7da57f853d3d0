import { describe, expect, it } from "vitest";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState, readCacheStats } from "@/lib/db/read-cache";
import { later } from "@/lib/testing/clock";
import { waitFor } from "@/lib/testing/elsewhere";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { type HeldEntry, heldStatuses, statusCatalog } from "./catalog";
import { NO_GUARD_RAILS, writeGuardRails } from "./guard-rails";
import { rotateLater } from "./lifecycle";
import { getPrivateIntegration } from "./read";
import { generatePrivateIntegrationToken } from "./token";
import { flushLastUsedWrites, lookupToken, verifyPrivateIntegrationToken } from "./verify";

const t0 = new Date("2031-05-01T12:00:00.000Z");

async function lastUsed(tokenId: string) {
  await flushLastUsedWrites();
  const row = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id: tokenId } });
  return row.lastUsedAt?.toISOString() ?? null;
}

describe("verifyPrivateIntegrationToken", () => {
  it("turns a sub-account token into a Location principal with the integration's scopes", async () => {
    const { company, locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token, integration } = await makeIntegration(
      { owner },
      { locationId: locations[0]!.id, name: "CRM", scopes: ["contacts.write", "locations.readonly"], now: t0 },
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
    const { token, integration } = await makeIntegration(
      { owner },
      { name: "Reports", scopes: ["locations.readonly", "oauth.readonly"], now: t0 },
    );
    await rotateLater(owner, target, integration.id, t0);
    const result = await verifyPrivateIntegrationToken(token, later(t0, 1000));
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

  it("gives each request its own principal, also when the token's row comes from the read cache", async () => {
    const { locations, owner } = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const { token, integration } = await makeIntegration({ owner }, { name: "Chosen", now: t0 });
    const subAccounts = { all: false, locationIds: [locations[1]!.id] };
    await changeCachedState(() =>
      db().$transaction((tx) => writeGuardRails(tx, integration.id, { ...NO_GUARD_RAILS, subAccounts })),
    );
    // The first verification starts the read cache's listener; until it listens, nothing is cached.
    await waitFor(async () => (await verifyPrivateIntegrationToken(token, t0)).ok && readCacheStats().listening);
    await verifyPrivateIntegrationToken(token, t0);
    expect(readCacheStats().size).toBeGreaterThan(0);
    const first = await verifyPrivateIntegrationToken(token, t0);
    const second = await verifyPrivateIntegrationToken(token, t0);
    if (!first.ok || !second.ok) throw new Error("the token was refused");
    expect(second).toEqual(first);
    expect(first.principal.allowedLocationIds).toEqual([locations[1]!.id]);
    expect(second.principal).not.toBe(first.principal);
    first.principal.scopes.push("contacts.write");
    first.principal.allowedLocationIds?.push("elsewhere");
    const third = await verifyPrivateIntegrationToken(token, t0);
    expect(third).toEqual(second);
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
    const { token, integration } = await makeIntegration(
      { owner },
      { locationId: locations[0]!.id, name: "Poller", scopes: ["contacts.readonly"], now: t0 },
    );
    const id = integration.token.id;
    expect(await lastUsed(id)).toBeNull();
    await Promise.all(Array.from({ length: 20 }, () => verifyPrivateIntegrationToken(token, later(t0, 1000))));
    expect(await lastUsed(id)).toBe(later(t0, 1000).toISOString());
    await verifyPrivateIntegrationToken(token, later(t0, 59_999 + 1000));
    expect(await lastUsed(id)).toBe(later(t0, 1000).toISOString());
    await verifyPrivateIntegrationToken(token, later(t0, 60_000 + 1000));
    expect(await lastUsed(id)).toBe(later(t0, 61_000).toISOString());
  });

  it("writes the old token's first use after its rotation began at once, with its address", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const target = { level: "agency", companyId: company.id } as const;
    const { token, integration } = await makeIntegration({ owner }, { name: "Rotated", now: t0 });
    const id = integration.token.id;
    const used = async () => {
      await flushLastUsedWrites();
      const row = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id } });
      return [row.lastUsedAt?.toISOString() ?? null, row.lastUsedAddress];
    };
    await verifyPrivateIntegrationToken(token, later(t0, 1000), { clientAddress: "198.51.100.1" });
    expect(await used()).toEqual([later(t0, 1000).toISOString(), "198.51.100.1"]);
    await rotateLater(owner, target, integration.id, later(t0, 2000));
    // Within the minute of the last write, but the first use since the rotation: written.
    await verifyPrivateIntegrationToken(token, later(t0, 3000), { clientAddress: "203.0.113.7" });
    expect(await used()).toEqual([later(t0, 3000).toISOString(), "203.0.113.7"]);
    // Then once a minute again.
    await verifyPrivateIntegrationToken(token, later(t0, 4000), { clientAddress: "203.0.113.8" });
    expect(await used()).toEqual([later(t0, 3000).toISOString(), "203.0.113.7"]);
    const view = await getPrivateIntegration(owner, target, integration.id, later(t0, 5000));
    expect(view.previousToken).toMatchObject({
      rotatedAt: later(t0, 2000),
      lastUsedAt: later(t0, 3000),
      lastUsedAddress: "203.0.113.7",
    });
  });

  it("does not fail the request when the lastUsedAt write fails", async () => {
    const { locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const { token } = await makeIntegration(
      { owner },
      { locationId: locations[0]!.id, name: "Flaky", scopes: ["contacts.readonly"], now: t0 },
    );
    const model = db().privateIntegrationToken;
    const original = model.updateMany;
    model.updateMany = (() => Promise.reject(new Error("database unavailable"))) as unknown as typeof original;
    try {
      expect((await verifyPrivateIntegrationToken(token, later(t0, 5 * 60_000))).ok).toBe(true);
      await flushLastUsedWrites();
    } finally {
      model.updateMany = original;
    }
  });
});

// The lookup runs past Prisma on PostgreSQL (lib/db/hot-statement.ts); its row must read as
// Prisma's raw query read it: Dates in UTC, text arrays, nulls.
describe("the token lookup", () => {
  it("reads the row as Prisma does", async () => {
    const { company, locations, owner } = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const target = { level: "agency", companyId: company.id } as const;
    const { token, integration } = await makeIntegration(
      { owner },
      { name: "Lookup", scopes: ["locations.readonly", "oauth.readonly"], now: t0 },
    );
    await rotateLater(owner, target, integration.id, t0);
    const stored = await db().privateIntegrationToken.findUniqueOrThrow({
      where: { id: integration.token.id },
      include: { integration: true },
    });
    const row = await lookupToken(hashSecret(token));
    expect(row).toEqual({
      id: stored.id,
      slot: "previous",
      expiresAt: stored.expiresAt,
      revokedAt: null,
      lastUsedAt: null,
      rotatedOutAt: t0,
      integrationId: integration.id,
      companyId: company.id,
      locationId: null,
      scopes: stored.integration.scopes,
      heldAs: null,
      integrationExpiresAt: stored.integration.expiresAt,
      allowedIpAddresses: stored.integration.allowedIpAddresses,
      allowedLocationIds: stored.integration.allSubAccounts ? null : [],
    });
    expect(row?.expiresAt).toEqual(new Date(t0.getTime() + 7 * 24 * 3600 * 1000));
    // The guard rails set: an Expires, an allowlist, chosen sub-accounts.
    await db().privateIntegration.update({
      where: { id: integration.id },
      data: {
        expiresAt: later(t0, 86_400_000),
        allowedIpAddresses: ["203.0.113.7", "10.0.0.0/8"],
        allSubAccounts: false,
      },
    });
    const chosen = locations.map((l) => l.id).sort();
    await db().privateIntegrationLocation.createMany({
      data: chosen.map((locationId) => ({ integrationId: integration.id, locationId })),
    });
    expect(await lookupToken(hashSecret(token))).toMatchObject({
      integrationExpiresAt: later(t0, 86_400_000),
      allowedIpAddresses: ["203.0.113.7", "10.0.0.0/8"],
      allowedLocationIds: chosen,
    });
    expect(await lookupToken(hashSecret("pit-unknown"))).toBeUndefined();
  });
});

describe("an integration held in a status (the catalogue's `held`)", () => {
  it.each(heldStatuses)("%s: every token of it is refused with the catalogue's code and words", async (status) => {
    const { owner } = await makeAgency({ privateIntegrationsLab: true });
    const { token, integration } = await makeIntegration(
      { owner },
      { name: "Held", scopes: ["locations.readonly"], now: t0 },
    );
    expect((await verifyPrivateIntegrationToken(token, t0)).ok).toBe(true);
    const { by, refusal }: HeldEntry = statusCatalog[status].held;
    // Only the integration's column: the refusal is the status's, whatever its tokens say.
    await changeCachedState(() =>
      db().privateIntegration.update({ where: { id: integration.id }, data: { [by]: t0 } }),
    );
    expect(await lookupToken(hashSecret(token))).toMatchObject({ heldAs: status });
    expect(await verifyPrivateIntegrationToken(token, later(t0, 1000))).toEqual({
      ok: false,
      reason: "refused",
      refusal,
      integrationId: integration.id,
    });
  });
});
