import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { dbTiming, resetDbTiming } from "@/lib/db/timing";
import { makeAgency } from "@/lib/testing/fixtures";
import type { IntegrationOwner } from "./access";
import { createPrivateIntegration } from "./lifecycle";
import { listPrivateIntegrations } from "./read";

// Count the database calls (the bench's counter, lib/db/timing.ts); read when the client opens.
process.env.BENCH_DB_TIMING = "1";

describe("listPrivateIntegrations: the list screen's read", () => {
  it("reads 500 integrations with as many database calls as 1 (no N+1)", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const target: IntegrationOwner = { level: "agency", companyId: company.id };
    await createPrivateIntegration(owner, target, { name: "First", scopes: ["locations.readonly"] });
    await listPrivateIntegrations(owner, target); // warm: access checks may cache
    resetDbTiming();
    await listPrivateIntegrations(owner, target);
    const callsForOne = dbTiming().calls;

    const ids = Array.from({ length: 499 }, (_, i) => `bulk-${i}-${randomBytes(4).toString("hex")}`);
    await db().privateIntegration.createMany({
      data: ids.map((id, i) => ({
        id,
        companyId: company.id,
        name: `Bulk ${i}`,
        scopes: ["locations.readonly"],
        createdByUserId: owner.id,
      })),
    });
    await db().privateIntegrationToken.createMany({
      data: ids.map((integrationId) => ({
        integrationId,
        slot: "current" as const,
        tokenHash: randomBytes(32).toString("hex"),
        hint: `pit-…${randomBytes(2).toString("hex")}`,
      })),
    });

    resetDbTiming();
    const list = await listPrivateIntegrations(owner, target);
    expect(list).toHaveLength(500);
    expect(dbTiming().calls, "database calls for 500 integrations").toBe(callsForOne);
    // Access checks, the integrations with their tokens and chosen sub-accounts, their creators: 7 today.
    expect(callsForOne).toBeLessThanOrEqual(8);
  });
});
