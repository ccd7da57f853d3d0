import { describe, expect, it } from "vitest";
import { setLabsFeature } from "@/lib/accounts/labs";
import { dbTiming, resetDbTiming } from "@/lib/db/timing";
import type { IntegrationOwner } from "@/lib/integrations/access";
import { listAuditPage } from "@/lib/integrations/audit-log";
import { createPrivateIntegration, rotateLater } from "@/lib/integrations/lifecycle";
import { defaultListQuery, listPage, triageFactsOfView } from "@/lib/integrations/list-page";
import { listPrivateIntegrations, readMaximumTokenLifetime } from "@/lib/integrations/read";
import { addBulkIntegrations } from "@/lib/testing/bulk-integrations";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { readIntegrationsScreen } from "./screen-read";

// Count the database calls and their rounds (the bench's counter, lib/db/timing.ts).
process.env.BENCH_DB_TIMING = "1";

describe("readIntegrationsScreen: the Private Integrations screen's read", () => {
  it("reads the page of 500 integrations, Activity and Requests in one round of queries, the same as the reads one by one", async () => {
    const { company, owner } = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const target: IntegrationOwner = { level: "agency", companyId: company.id };
    const now = new Date();
    const first = await createPrivateIntegration(owner, target, { name: "First", scopes: ["locations.readonly"] });
    await rotateLater(owner, target, first.integration.id);
    const ids = await addBulkIntegrations(owner, { count: 499, used: 30, now });

    resetDbTiming();
    process.env.BENCH_DB_LATENCY_MS = "30";
    const read = await readIntegrationsScreen(owner, target, now, defaultListQuery).finally(() => {
      delete process.env.BENCH_DB_LATENCY_MS;
    });
    expect(dbTiming().rounds, "rounds of queries").toBe(1);
    expect(dbTiming().calls).toBeLessThanOrEqual(8);
    if (!read.ok) throw new Error(read.message);
    const { screen } = read;

    // The same as each read on its own, which the API and the other screens use, paged by the rules.
    const list = await listPrivateIntegrations(owner, target, now);
    expect(list).toHaveLength(500);
    expect(screen.list).toEqual(listPage(list, triageFactsOfView, defaultListQuery, now));
    expect(screen.list.rows).toHaveLength(50);
    // The first 30 were used this hour, the first once, the next twice, …
    expect(Object.fromEntries(screen.requests)).toEqual(
      Object.fromEntries(ids.slice(0, 30).map((id, i) => [id, i + 1])),
    );
    const page = await listAuditPage(owner, target);
    expect(screen.audit).toEqual(page);
    expect(screen.audit.entries.map((e) => e.label)).toEqual(["Rotated, old token expires later", "Created"]);
    expect(screen.maximumTokenLifetimeDays).toBe(await readMaximumTokenLifetime(company.id));
    expect(screen.subAccounts.map((s) => s.name)).toEqual(["Sub-account 1", "Sub-account 2"]);
    expect(screen.owner).toMatchObject({ level: "agency", companyId: company.id, locationId: null });
  });

  it("answers the access rule's refusal, and none of the data, as checkIntegrationAccess would", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const other = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const now = new Date();
    await createPrivateIntegration(
      owner,
      { level: "agency", companyId: company.id },
      { name: "Mine", scopes: ["locations.readonly"] },
    );

    // Another agency's sub-account is not found; its integrations are never read (bounded to the actor's agency).
    const elsewhere = await readIntegrationsScreen(
      owner,
      { level: "location", locationId: other.locations[0]!.id },
      now,
      defaultListQuery,
    );
    expect(elsewhere).toMatchObject({ ok: false, reason: "not_found" });
    expect(
      await readIntegrationsScreen(owner, { level: "agency", companyId: other.company.id }, now, defaultListQuery),
    ).toMatchObject({
      ok: false,
      reason: "not_found",
    });

    // A person without the permission.
    const user = await makeUser(company.id, "agency_user");
    const refused = await readIntegrationsScreen(
      user,
      { level: "agency", companyId: company.id },
      now,
      defaultListQuery,
    );
    expect(refused).toMatchObject({ ok: false, reason: "forbidden" });
    expect(refused).not.toHaveProperty("screen");

    // Labs off.
    await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: false });
    expect(
      await readIntegrationsScreen(owner, { level: "agency", companyId: company.id }, now, defaultListQuery),
    ).toMatchObject({
      ok: false,
      reason: "labs_off",
    });
    await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: true });

    // A sub-account's own screen reads only its integrations.
    const sub = await readIntegrationsScreen(
      owner,
      { level: "location", locationId: locations[0]!.id },
      now,
      defaultListQuery,
    );
    if (!sub.ok) throw new Error(sub.message);
    expect(sub.screen.list).toMatchObject({ rows: [], total: 0, matching: 0, page: 0, pageCount: 1 });
    expect(sub.screen.subAccounts).toEqual([]);
  });
});
