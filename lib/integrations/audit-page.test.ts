import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { agencyOwner, makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { AUDIT_PAGE_SIZE, integrationAuditActions, listAuditPage } from "./audit-log";
import { updatePrivateIntegration } from "./lifecycle";

/**
 * `Activity` shows the newest 20 entries and `Show more` the next 20: pages in (createdAt, id)
 * order that neither repeat nor skip an entry, even when many share one instant.
 */
let A: TestAgency;
let busy = "";
const ofIntegrations = () => ({ companyId: A.company.id, action: { in: [...integrationAuditActions] } });

beforeAll(async () => {
  A = await makeAgency({ locations: 0, privateIntegrationsLab: true });
  const { integration } = await makeIntegration(A, { name: "Busy" });
  busy = integration.id;
  for (let i = 1; i <= 30; i++) {
    await updatePrivateIntegration(A.owner, agencyOwner(A), busy, {
      name: `Busy ${i}`,
      description: "",
      scopes: ["locations.readonly"],
    });
  }
  await makeIntegration(A, { name: "Quiet" });
  // Ten entries of one instant: the cursor's id breaks the tie.
  const rows = await db().auditLog.findMany({ where: ofIntegrations(), orderBy: { createdAt: "asc" } });
  const same = rows[5]?.createdAt as Date;
  await db().auditLog.updateMany({
    where: { id: { in: rows.slice(5, 15).map((r) => r.id) } },
    data: { createdAt: same },
  });
});

describe("the audit trail a page at a time", () => {
  it("answers the newest 20 and whether there are more, then the rest after the last one shown", async () => {
    const all = await db().auditLog.count({ where: ofIntegrations() });
    expect(all).toBe(32);
    const first = await listAuditPage(A.owner, agencyOwner(A));
    expect(first.entries).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.more).toBe(true);
    const last = first.entries.at(-1);
    const second = await listAuditPage(A.owner, agencyOwner(A), {
      before: { at: last?.at as Date, id: last?.id as string },
    });
    expect(second.entries).toHaveLength(all - AUDIT_PAGE_SIZE);
    expect(second.more).toBe(false);
    const ids = [...first.entries, ...second.entries].map((e) => e.id);
    expect(new Set(ids).size).toBe(all);
    // Newest first throughout.
    const times = [...first.entries, ...second.entries].map((e) => e.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("one integration's history pages the same way", async () => {
    const first = await listAuditPage(A.owner, agencyOwner(A), { integrationId: busy });
    expect(first.entries.every((e) => e.integrationId === busy)).toBe(true);
    expect(first.more).toBe(true);
    const last = first.entries.at(-1);
    const second = await listAuditPage(A.owner, agencyOwner(A), {
      integrationId: busy,
      before: { at: last?.at as Date, id: last?.id as string },
    });
    expect(first.entries.length + second.entries.length).toBe(31);
    expect(second.more).toBe(false);
  });
});
