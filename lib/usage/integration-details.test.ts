import { describe, expect, it } from "vitest";
import { Refusal } from "@/lib/refusal";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { UsageCounter } from "./counter";
import { integrationUsageDetails } from "./integration-details";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// A fixed clock: mid-afternoon UTC, so "24 hours" reaches into yesterday.
const now = new Date("2026-03-20T15:30:00Z");

async function usedIntegration() {
  const agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const location = agency.locations[0]!;
  const owner = { level: "location", locationId: location.id } as const;
  const { integration } = await makeIntegration(agency, { owner, name: "Counted" });
  const counter = new UsageCounter();
  const subject = { type: "integration", id: integration.id } as const;
  const at = (ms: number) => new Date(now.getTime() - ms);
  // Today: 3 ok, 1 refused; 20 hours ago (yesterday): 2 ok; 5 days ago: 1 limited; 40 days ago: 7 ok.
  for (let i = 0; i < 3; i++) counter.count(subject, "ok", at(0));
  counter.count(subject, "ok", at(20 * HOUR));
  counter.count(subject, "ok", at(20 * HOUR));
  counter.count(subject, "limited", at(5 * DAY));
  for (let i = 0; i < 7; i++) counter.count(subject, "ok", at(40 * DAY));
  counter.count(subject, "refused", at(2 * HOUR), {
    address: "198.51.100.9",
    endpoint: `GET /locations/${agency.locations[1]!.id}`,
    errorCode: "forbidden",
    description: "This token cannot reach that sub-account.",
  });
  expect(await counter.stop()).toBe(true);
  return { agency, owner, integration };
}

describe("integrationUsageDetails: what an integration's details show of its usage", () => {
  it("30 days (today last, zeros included), totals for 24 hours and 7 days, the last refused request", async () => {
    const { agency, owner, integration } = await usedIntegration();
    const usage = await integrationUsageDetails(agency.owner, owner, integration.id, now);

    expect(usage.days).toHaveLength(30);
    expect(usage.days.at(-1)).toEqual({ date: "2026-03-20", ok: 3, refused: 1, limited: 0 });
    expect(usage.days.at(-2)).toEqual({ date: "2026-03-19", ok: 2, refused: 0, limited: 0 });
    expect(usage.days.at(-6)).toEqual({ date: "2026-03-15", ok: 0, refused: 0, limited: 1 });
    expect(usage.days[0]?.date).toBe("2026-02-19");
    // 40 days ago is outside the chart.
    expect(usage.days.reduce((n, d) => n + d.ok + d.refused + d.limited, 0)).toBe(7);

    expect(usage.last24Hours).toEqual({ ok: 5, refused: 1, limited: 0, total: 6 });
    expect(usage.last7Days).toEqual({ ok: 5, refused: 1, limited: 1, total: 7 });
    expect(usage.lastRefusal).toEqual({
      at: new Date(now.getTime() - 2 * HOUR),
      address: "198.51.100.9",
      endpoint: `GET /locations/${agency.locations[1]!.id}`,
      errorCode: "forbidden",
      description: "This token cannot reach that sub-account.",
    });
  });

  it("an unused integration: zeros and no refused request", async () => {
    const agency = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const owner = { level: "agency", companyId: agency.company.id } as const;
    const { integration } = await makeIntegration(agency, { owner, name: "Quiet" });
    const usage = await integrationUsageDetails(agency.owner, owner, integration.id, now);
    expect(usage.days.every((d) => d.ok + d.refused + d.limited === 0)).toBe(true);
    expect(usage.last7Days.total).toBe(0);
    expect(usage.lastRefusal).toBeNull();
  });

  it("the same gate as the screen: another owner's integration is not found, no permission is forbidden", async () => {
    const { agency, owner, integration } = await usedIntegration();
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (e instanceof Refusal ? e.kind : e),
      );

    // Through the other sub-account's screen, or the agency's: not this owner's integration.
    const other = { level: "location", locationId: agency.locations[1]!.id } as const;
    expect(await refusal(integrationUsageDetails(agency.owner, other, integration.id, now))).toBe("not_found");
    const agencyOwner = { level: "agency", companyId: agency.company.id } as const;
    expect(await refusal(integrationUsageDetails(agency.owner, agencyOwner, integration.id, now))).toBe("not_found");

    // Another agency's person: not found, never forbidden.
    const stranger = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    expect(await refusal(integrationUsageDetails(stranger.owner, owner, integration.id, now))).toBe("not_found");

    // A member of the sub-account without the permission.
    const member = await makeUser(agency.company.id, "account_user", {
      locationIds: [owner.locationId],
      locationPrivateIntegrations: false,
    });
    expect(await refusal(integrationUsageDetails(member, owner, integration.id, now))).toBe("forbidden");
  });
});
