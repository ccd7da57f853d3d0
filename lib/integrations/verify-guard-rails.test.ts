import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { type GuardRails, NO_GUARD_RAILS, parseExpiresDate, writeGuardRails } from "./guard-rails";
import { rotateLater } from "./lifecycle";
import { flushLastUsedWrites, verifyPrivateIntegrationToken } from "./verify";

/** verifyPrivateIntegrationToken with the guard rails, the clock and the caller's address as parameters. */

const t0 = new Date("2031-05-01T12:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;

/** A new agency's integration (its first sub-account's with "location"), `rails` written as Edit writes them. */
async function integrationWithRails(rails: Partial<GuardRails>, level: "agency" | "location" = "agency") {
  const agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const owner =
    level === "agency"
      ? ({ level: "agency", companyId: agency.company.id } as const)
      : ({ level: "location", locationId: agency.locations[0]!.id } as const);
  const created = await makeIntegration(agency, { owner, name: "Guarded", now: t0 });
  await changeCachedState(() =>
    db().$transaction((tx) => writeGuardRails(tx, created.integration.id, { ...NO_GUARD_RAILS, ...rails })),
  );
  return { ...created, agency, owner };
}

describe("Expires, against the clock", () => {
  const stop = parseExpiresDate("2031-05-10") as Date; // 2031-05-11T00:00Z
  const cases: [name: string, now: Date, ok: boolean][] = [
    ["long before", t0, true],
    ["a millisecond before", new Date(stop.getTime() - 1), true],
    ["at the moment", stop, false],
    ["after", new Date(stop.getTime() + DAY), false],
  ];
  it.each(cases)("%s", async (_name, now, ok) => {
    const { token, integration: created } = await integrationWithRails({ expiresAt: stop });
    const result = await verifyPrivateIntegrationToken(token, now, { clientAddress: "192.0.2.1" });
    if (ok) {
      expect(result).toMatchObject({ ok: true, principal: { expiresAt: stop } });
    } else {
      expect(result).toEqual({
        ok: false,
        reason: "refused",
        refusal: {
          code: "invalid_token",
          description: expect.stringContaining(
            "its Expires date was 2031-05-10, so its tokens stopped working at 2031-05-11T00:00:00.000Z",
          ),
        },
        // Whose refusal it was, for the integration's usage (lib/api/usage.ts).
        integrationId: created.id,
      });
    }
  });

  it("during a rotation the principal ends at the earlier of the overlap and Expires", async () => {
    const created = await integrationWithRails({ expiresAt: later(t0, 3 * DAY) });
    await rotateLater(created.agency.owner, created.owner, created.integration.id, t0);
    const old = await verifyPrivateIntegrationToken(created.token, later(t0, 1000));
    expect(old).toMatchObject({ ok: true, principal: { expiresAt: later(t0, 3 * DAY) } });
  });
});

describe("Allowed IP addresses, against the caller's address", () => {
  const cases: [address: string | undefined, ok: boolean][] = [
    ["203.0.113.9", true],
    ["2001:db8::9", true],
    ["198.51.100.7", false],
    ["unknown", false],
    [undefined, false],
  ];
  it.each(cases)("%s: %s", async (address, ok) => {
    const { token } = await integrationWithRails({ allowedIpAddresses: ["203.0.113.0/24", "2001:db8::/32"] });
    const result = await verifyPrivateIntegrationToken(
      token,
      later(t0, 1000),
      address ? { clientAddress: address } : undefined,
    );
    if (ok) expect(result.ok).toBe(true);
    else expect(result).toMatchObject({ ok: false, reason: "refused", refusal: { code: "forbidden" } });
  });

  it("records the address with lastUsedAt", async () => {
    const { token, integration: view } = await integrationWithRails({});
    await verifyPrivateIntegrationToken(token, later(t0, 1000), { clientAddress: "198.51.100.7" });
    await flushLastUsedWrites();
    const row = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id: view.token.id } });
    expect(row).toMatchObject({ lastUsedAt: later(t0, 1000), lastUsedAddress: "198.51.100.7" });
  });
});

describe("Sub-accounts in the principal", () => {
  it("all: no list; chosen: the list; sub-account integrations: none", async () => {
    const all = await integrationWithRails({});
    const allResult = await verifyPrivateIntegrationToken(all.token, later(t0, 1000));
    expect(allResult.ok && allResult.principal.allowedLocationIds).toBeUndefined();

    const agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const created = await makeIntegration(agency, { name: "Chosen", now: t0 });
    const chosen = [agency.locations[1]!.id];
    await changeCachedState(() =>
      db().$transaction((tx) =>
        writeGuardRails(tx, created.integration.id, {
          ...NO_GUARD_RAILS,
          subAccounts: { all: false, locationIds: chosen },
        }),
      ),
    );
    const result = await verifyPrivateIntegrationToken(created.token, later(t0, 1000));
    expect(result).toMatchObject({ ok: true, principal: { allowedLocationIds: chosen } });

    const sub = await integrationWithRails({}, "location");
    const subResult = await verifyPrivateIntegrationToken(sub.token, later(t0, 1000));
    expect(subResult.ok && subResult.principal.allowedLocationIds).toBeUndefined();
  });
});
