import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { LifecycleConfirm } from "@/components/private-integrations/lifecycle-confirm";
import { menuActions } from "@/components/private-integrations/menu-actions";
import type { IntegrationActions, IntegrationItem } from "@/components/private-integrations/types";
import { lifecycleOperation } from "@/lib/management-api/operations";
import { apiPrivateIntegrationSchema } from "@/lib/management-api/shape";
import { oneAt } from "@/lib/testing/triage-facts";
import { integrationAuditActions, integrationAuditLabels } from "./audit-log";
import {
  type HoldColumns,
  heldStatuses,
  integrationStatuses,
  type LifecycleKind,
  lifecycleActions,
  lifecycleKinds,
  statusCatalog,
  statusLabels,
  storedStatus,
} from "./catalog";
import { type Reach, requireCovers } from "./no-escalation";
import { extraFilters, integrationStatus, isStatusFilter, statusFilters } from "./triage";

// The confirmations refresh the page after a refusal; rendered here, nothing is refused.
vi.mock("next/navigation", () => ({ useRouter: () => ({ refresh: () => undefined }) }));

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

  it("are SPEC.md's `Status` options by their labels, or an extra filter applied by a link", () => {
    const options = statusFilters.filter((f) => (integrationStatuses as readonly string[]).includes(f.value));
    const asOptions = integrationStatuses.filter((s) => statusCatalog[s].filter === "option");
    expect(options).toEqual(asOptions.map((value) => ({ value, label: statusLabels[value] })));
    expect(extraFilters.map((f) => f.value)).toEqual(integrationStatuses.filter((s) => !asOptions.includes(s)));
  });

  it("held ones are each stored by a column of their own, the first listed winning", () => {
    const none = Object.fromEntries(heldStatuses.map((s) => [statusCatalog[s].held.by, null])) as HoldColumns;
    const columns = heldStatuses.map((s) => statusCatalog[s].held.by);
    expect(new Set(columns).size).toBe(columns.length);
    expect(storedStatus(none, false)).toBe("active");
    expect(storedStatus(none, true)).toBe("rotating");
    for (const [i, status] of heldStatuses.entries()) {
      const held = { ...none, ...Object.fromEntries(columns.slice(i).map((c) => [c, new Date(0)])) };
      expect(storedStatus(held as HoldColumns, true), status).toBe(status);
      expect(statusCatalog[status].live, status).toBe(false);
    }
  });
});

describe("the lifecycle actions", () => {
  const screenActions = readFileSync(join(process.cwd(), "app/(admin)/_private-integrations/actions.ts"), "utf8");

  it.each(lifecycleKinds)(
    "%s is wired in every layer: audit, the screen's server action, the rule of cover",
    (kind) => {
      const action = lifecycleActions[kind];
      expect(integrationAuditActions).toContain(action.audit.action);
      expect(integrationAuditLabels[action.audit.action]).toBe(action.audit.label);
      expect(screenActions).toMatch(new RegExp(`^export const ${kind}Action = `, "m"));
      const open: Reach = { locationId: null, subAccounts: { all: true }, allowedIpAddresses: [], expiresAt: null };
      expect(() =>
        requireCovers({ ...open, scopes: ["locations.readonly"] }, { ...open, scopes: ["users.write"] }, kind),
      ).toThrow(`it can only ${action.cover.acts} integrations`);
    },
  );

  it.each(lifecycleKinds)("%s is its management-API route's operation, as the catalogue words it", (kind) => {
    const { api } = lifecycleActions[kind];
    const route = apiRoutes.find((r) => r.pattern === api.path);
    const handler = route?.handlers[api.method];
    expect(handler, `${api.method} ${api.path}`).toBeDefined();
    const operation = lifecycleOperation(kind);
    expect(handler?.declaration).toMatchObject({
      operationId: api.operationId,
      summary: api.summary,
      description: operation.description,
      success: { status: operation.success.status, description: api.answer },
    });
    expect(operation.description).toContain(api.description);
  });

  it.each(lifecycleKinds)("%s has its confirmation: the catalogue's title, and `Confirm`", (kind) => {
    const { confirm } = lifecycleActions[kind];
    const html = renderToStaticMarkup(
      createElement(LifecycleConfirm, {
        kind,
        item: rotatingItem,
        now: () => new Date("2031-01-02T00:00:00Z"),
        actions: Object.fromEntries(
          [...lifecycleKinds, "create", "update"].map((name) => [name, async () => ({})]),
        ) as unknown as IntegrationActions,
        fields: { integrationId: rotatingItem.id },
        onDone: noop,
        onClose: noop,
        fallbackFocus: () => null,
        returnFocus: () => null,
      }),
    );
    expect(html).toContain(`>${confirm.title(rotatingItem.name)}</h2>`);
    expect(html).toMatch(/<button[^>]*>Confirm<\/button>/);
    expect(html).toContain(rotatingItem.token.hint);
  });

  it("each is a menu entry exactly where its status allows it, by its catalogue name", () => {
    const active = { ...rotatingItem, previousToken: null };
    const offered = new Set<string>();
    for (const status of integrationStatuses) {
      const item = status === "rotating" ? rotatingItem : active;
      const labels = menuActions(item, status, noop, noop).map((e) => e.label);
      const allowed = lifecycleKinds.filter((kind) =>
        (lifecycleActions[kind].menu.allowedIn as readonly string[]).includes(status),
      );
      const buttons = new Set<string>(lifecycleKinds.map((kind) => lifecycleActions[kind].button));
      expect(
        labels.filter((label) => buttons.has(label)),
        status,
      ).toEqual(allowed.map((kind) => lifecycleActions[kind].button).sort(byMenuOrder));
      for (const label of labels) offered.add(label);
    }
    for (const kind of lifecycleKinds) expect(offered, kind).toContain(lifecycleActions[kind].button);
  });

  it("every audit action of an integration is named once, no two alike", () => {
    const labels = Object.values(integrationAuditLabels);
    expect(new Set(labels).size).toBe(labels.length);
    expect(Object.keys(integrationAuditLabels).sort()).toEqual([...integrationAuditActions].sort());
  });

  it("no two actions share a button, a confirmation title, an audit action or an operation (but the two rotations' one route)", () => {
    const all = lifecycleKinds.map((kind) => lifecycleActions[kind]);
    const distinct = (values: string[]) => expect(new Set(values).size).toBe(values.length);
    distinct(all.map((a) => a.button));
    distinct(all.map((a) => a.confirm.title("x")));
    distinct(all.map((a) => a.audit.action));
    const operations = new Set(all.map((a) => `${a.api.method} ${a.api.path} ${a.api.operationId}`));
    expect(operations.size).toBe(all.length - 1);
  });
});

/** Dangerous entries (Delete) come last, after `Edit`; the others in the catalogue's order. */
const byMenuOrder = (a: string, b: string) => {
  const rank = (label: string) => {
    const kind = lifecycleKinds.find((k) => lifecycleActions[k].button === label) as LifecycleKind;
    return ("danger" in lifecycleActions[kind].menu ? 100 : 0) + lifecycleKinds.indexOf(kind);
  };
  return rank(a) - rank(b);
};

const noop = () => undefined;

/** An integration in the middle of a rotation, as the screen receives it. */
const rotatingItem: IntegrationItem = {
  id: "pi_catalogue",
  name: "Zapier sync",
  description: "",
  scopes: ["contacts.readonly"],
  createdAt: "2031-01-01T00:00:00.000Z",
  createdBy: null,
  lastUsedAt: null,
  status: "rotating",
  revoked: null,
  token: {
    hint: "pit-…1111",
    createdAt: "2031-01-01T00:00:00.000Z",
    ageDays: 1,
    rotationDue: false,
    neverShown: false,
  },
  previousToken: {
    hint: "pit-…0000",
    expiresAt: "2031-01-08T00:00:00.000Z",
    lastUsedAt: null,
    lastUsedAddress: null,
    rotatedAt: "2031-01-01T00:00:00.000Z",
  },
  lastUsedAddress: null,
  expires: "",
  expiresAt: null,
  expiry: { kind: "never" },
  subAccounts: { all: true },
  allowedIpAddresses: [],
};
