import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { menuActions } from "@/components/private-integrations/menu-actions";
import type { IntegrationItem } from "@/components/private-integrations/types";
import { apiPrivateIntegrationSchema } from "@/lib/management-api/shape";
import { oneAt } from "@/lib/testing/triage-facts";
import { integrationAuditActions, integrationAuditLabels } from "./audit-log";
import { integrationStatuses, lifecycleActions, lifecycleKinds, statusLabels } from "./catalog";
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

describe("the lifecycle actions", () => {
  const screenActions = readFileSync(join(process.cwd(), "app/(admin)/_private-integrations/actions.ts"), "utf8");

  it.each(lifecycleKinds)("%s is wired in every layer: audit, management API, the screen's server action", (kind) => {
    const action = lifecycleActions[kind];
    expect(integrationAuditActions).toContain(action.audit.action);
    expect(integrationAuditLabels[action.audit.action]).toBe(action.audit.label);
    const route = apiRoutes.find((r) => r.pattern === action.api.path);
    expect(route?.handlers[action.api.method], `${action.api.method} ${action.api.path}`).toBeDefined();
    expect(screenActions).toMatch(new RegExp(`^export const ${kind}Action = `, "m"));
  });

  it("each is a menu entry for the statuses that allow it, by its catalogue name", () => {
    const base = { previousToken: null } as unknown as IntegrationItem;
    const rotating = { previousToken: { hint: "pit-…0000" } } as unknown as IntegrationItem;
    const labels = new Set(
      [
        menuActions(base, "active", noop, noop),
        menuActions(rotating, "rotating", noop, noop),
        menuActions(base, "revoked", noop, noop),
        menuActions(base, "expired", noop, noop),
      ].flatMap((entries) => entries.map((e) => e.label)),
    );
    for (const kind of lifecycleKinds) expect(labels, kind).toContain(lifecycleActions[kind].button);
  });

  it("every audit action of an integration is named once, no two alike", () => {
    const labels = Object.values(integrationAuditLabels);
    expect(new Set(labels).size).toBe(labels.length);
    expect(Object.keys(integrationAuditLabels).sort()).toEqual([...integrationAuditActions].sort());
  });
});

const noop = () => undefined;
