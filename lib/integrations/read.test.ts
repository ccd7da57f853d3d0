import { describe, expect, it } from "vitest";
import { dbTiming, resetDbTiming } from "@/lib/db/timing";
import { addBulkIntegrations } from "@/lib/testing/bulk-integrations";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { ownerRequestsLast7Days } from "@/lib/usage/read";
import type { IntegrationOwner } from "./access";
import { listPrivateIntegrations } from "./read";

// Count the database calls (the bench's counter, lib/db/timing.ts); read when the client opens.
process.env.BENCH_DB_TIMING = "1";

describe("listPrivateIntegrations: the list screen's read", () => {
  it("reads 500 integrations with as many database calls as 1 (no N+1)", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const target: IntegrationOwner = { level: "agency", companyId: company.id };
    const now = new Date();
    // What the management API's list reads: the list, then `Requests (7 days)` of the owner's
    // integrations in one query.
    const screenRead = async () => {
      const list = await listPrivateIntegrations(owner, target, now);
      const before = dbTiming().calls;
      const requests = await ownerRequestsLast7Days({ companyId: company.id, locationId: null }, now);
      expect(dbTiming().calls - before, "database calls for Requests (7 days)").toBe(1);
      return { list, requests };
    };
    await makeIntegration({ owner }, { name: "First" });
    await screenRead(); // warm: access checks may cache
    resetDbTiming();
    await screenRead();
    const callsForOne = dbTiming().calls;

    // Some of them used this hour: their counts come back in the same one query.
    const ids = await addBulkIntegrations(owner, { count: 499, used: 50, now });

    resetDbTiming();
    const { list, requests } = await screenRead();
    expect(list).toHaveLength(500);
    expect(requests.size).toBe(50);
    expect(requests.get(ids[9]!)).toBe(10);
    expect(requests.get(ids[99]!)).toBeUndefined();
    expect(dbTiming().calls, "database calls for 500 integrations").toBe(callsForOne);
    // The list (access checks, the integrations with their tokens and chosen sub-accounts, their
    // creators): 7 today, at most 8; and the usage counts: exactly 1 (checked in screenRead).
    expect(callsForOne).toBeLessThanOrEqual(8 + 1);
  });
});
