import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiPrivateIntegrationSchema } from "@/lib/management-api/shape";
import { oneAt } from "@/lib/testing/triage-facts";
import { integrationStatuses, statusLabels } from "./catalog";
import { integrationStatus, isStatusFilter } from "./triage";

/** Every layer's list of statuses is the catalogue's. */
describe("the integration statuses", () => {
  it("are what the triage rules answer, each of them reachable", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(oneAt, ([at, facts]) => {
        const status = integrationStatus(facts, at);
        expect(integrationStatuses).toContain(status);
        seen.add(status);
      }),
      { numRuns: 400 },
    );
    expect([...seen].sort()).toEqual([...integrationStatuses].sort());
  });

  it("are the management API's enum, each a Status filter, each with its label", () => {
    expect(apiPrivateIntegrationSchema.shape.status.options).toEqual([...integrationStatuses]);
    for (const status of integrationStatuses) {
      expect(isStatusFilter(status), status).toBe(true);
      expect(statusLabels[status]).toMatch(/^[A-Z][a-z]+$/);
    }
  });
});
