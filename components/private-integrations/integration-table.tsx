"use client";
// Over 250 lines on purpose: the table, its filters and the row markers (status, Token never shown) are read together; phone cards will split it.

import { type ReactNode, useMemo, useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { RelativeTime } from "@/components/ui/relative-time";
import {
  type AttentionKind,
  inFilter,
  integrationStatus,
  isStatusFilter,
  matchesSearch,
  needsAttention,
  type StatusFilter,
  statusFilters,
} from "@/lib/integrations/triage";
import { ActionsMenu } from "./actions-menu";
import { integrationTitleId, type LifecycleKind, ScopeChips, StatusBadge } from "./integration-card";
import { menuActions } from "./menu-actions";
import { triageFacts } from "./triage-facts";
import type { IntegrationItem } from "./types";

const attentionWords: Record<AttentionKind, (n: number) => string> = {
  expired: (n) => `${n} expired`,
  "expiring-soon": (n) => `${n} expiring soon (within 14 days)`,
  "rotation-due": (n) => `${n} due for rotation (token 90 days or older)`,
  unused: (n) => `${n} unused (not used in 30 days)`,
};

/**
 * The list as a table built for triage: `Needs attention` with links that apply a filter,
 * `Search integrations` and the `Status` filter, one row per integration with its actions in a
 * menu. The name opens the details (or the edit form) in a row below it. Times read relative to
 * the render time (`now`), the same on the server and in the browser.
 */
export function IntegrationTable({
  items,
  now,
  initialFilter,
  expanded,
  renderExpanded,
  onToggleDetails,
  onEdit,
  onAction,
}: {
  items: IntegrationItem[];
  now: string;
  initialFilter?: string;
  /** The integration whose details or edit form are open, if any. */
  expanded: string | null;
  renderExpanded: (item: IntegrationItem) => ReactNode;
  onToggleDetails: (id: string) => void;
  onEdit: (id: string, focus?: "expires") => void;
  onAction: (kind: LifecycleKind, id: string) => void;
}) {
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<StatusFilter>(isStatusFilter(initialFilter) ? initialFilter : "all");
  const clock = useMemo(() => new Date(now), [now]);
  const rows = useMemo(
    () =>
      items.map((item) => ({ item, facts: triageFacts(item), status: integrationStatus(triageFacts(item), clock) })),
    [items, clock],
  );
  const attention = useMemo(
    () =>
      needsAttention(
        rows.map((r) => r.facts),
        clock,
      ),
    [rows, clock],
  );
  const shown = rows.filter((r) => inFilter(r.facts, filter, clock) && matchesSearch(r.facts, query));

  function applyFilter(next: StatusFilter) {
    setFilter(next);
    // The filter is in the address too, so a reload or a shared link keeps it.
    const url = new URL(window.location.href);
    if (next === "all") url.searchParams.delete("status");
    else url.searchParams.set("status", next);
    window.history.replaceState(window.history.state, "", url);
  }

  return (
    <div className="space-y-4">
      {attention.length ? (
        <section aria-labelledby="pi-attention" className="rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200">
          <h3 id="pi-attention" className="font-semibold text-amber-900">
            Needs attention
          </h3>
          <ul className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
            {attention.map(({ kind, count }) => (
              <li key={kind}>
                <a
                  href={`?status=${kind}`}
                  onClick={(e) => {
                    e.preventDefault();
                    applyFilter(kind);
                  }}
                  aria-current={filter === kind ? "true" : undefined}
                  className="font-medium text-amber-900 underline underline-offset-2"
                >
                  {attentionWords[kind](count)}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <search className="flex flex-wrap items-end gap-3">
        <label className="flex min-w-0 flex-1 flex-col gap-1 text-sm font-medium text-slate-700">
          Search integrations
          <input
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Name, description, scope or last 4 of a token"
            className="w-full rounded-md border-0 bg-surface px-3 py-2 text-sm font-normal text-slate-900 ring-1 ring-slate-300 ring-inset placeholder:text-slate-500 focus:ring-2 focus:ring-brand-600"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
          Status
          <select
            value={filter}
            onChange={(e) => applyFilter(e.target.value as StatusFilter)}
            className="rounded-md border-0 bg-surface py-2 pr-8 pl-3 text-sm font-normal text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-brand-600"
          >
            {statusFilters.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </search>

      <p className="text-sm text-slate-600" aria-live="polite">
        {shown.length === rows.length ? `Showing all ${rows.length}` : `Showing ${shown.length} of ${rows.length}`}
      </p>

      {/* A size container: the open details take the region's visible width (100cqw), not the table's. */}
      <DataTable
        label="Private integrations"
        caption="Private integrations"
        columns={[
          { label: "Name" },
          { label: "Status" },
          { label: "Scopes" },
          { label: "Last used", className: "whitespace-nowrap" },
          { label: "Expires" },
          { label: "Requests (7 days)", className: "text-right" },
          { label: "Actions", srOnly: true, className: "sticky right-0 bg-slate-50" },
        ]}
        className="@container"
        tableClassName=""
        after={
          shown.length === 0 ? (
            <p className="p-6 text-center text-sm text-slate-600">No integration matches this search and filter.</p>
          ) : null
        }
      >
        {shown.map(({ item, status }) => {
          const open = expanded === item.id;
          const panelId = `pi-${item.id}-panel`;
          return (
            <tbody key={item.id} aria-label={item.name} className="border-t border-slate-200">
              <tr className="align-top">
                <th scope="row" className="min-w-36 max-w-64 px-3 py-2.5 text-left font-normal">
                  <button
                    id={integrationTitleId(item.id)}
                    type="button"
                    aria-expanded={open}
                    aria-controls={open ? panelId : undefined}
                    onClick={() => onToggleDetails(item.id)}
                    className="text-left font-semibold break-words text-brand-700 underline-offset-2 hover:underline"
                  >
                    {item.name}
                  </button>
                  <span className="block font-mono text-xs text-slate-600">{item.token.hint}</span>
                  {item.token.neverShown ? (
                    <NeverShown
                      item={item}
                      canRotate={status === "active" || status === "rotating"}
                      onRotate={() => onAction("rotateNow", item.id)}
                    />
                  ) : null}
                  {item.description ? (
                    <span className="line-clamp-2 block text-xs break-words text-slate-600">{item.description}</span>
                  ) : null}
                </th>
                <td className="px-3 py-2.5">
                  <StatusBadge status={status} />
                </td>
                <td className="min-w-40 px-3 py-2.5">
                  <ScopeChips scopes={item.scopes} />
                </td>
                <td className="px-3 py-2.5 whitespace-nowrap text-slate-700">
                  {item.lastUsedAt ? <RelativeTime value={item.lastUsedAt} now={now} /> : "Never used"}
                </td>
                <td className="px-3 py-2.5 whitespace-nowrap text-slate-700">
                  {item.expiresAt ? <RelativeTime value={item.expiresAt} now={now} kind="expiry" /> : "Never"}
                </td>
                <td className="px-3 py-2.5 text-right tabular-nums text-slate-700">
                  {item.requests7d === undefined ? (
                    <>
                      <span aria-hidden="true">—</span>
                      <span className="sr-only">Not counted yet</span>
                    </>
                  ) : (
                    item.requests7d.toLocaleString("en")
                  )}
                </td>
                {/* Sticky: on a phone the menu stays in reach while the other columns scroll. */}
                <td className="sticky right-0 bg-surface px-3 py-2.5 text-right">
                  <ActionsMenu
                    name={item.name}
                    actions={menuActions(
                      item,
                      status,
                      (focus) => onEdit(item.id, focus),
                      (kind) => onAction(kind, item.id),
                    )}
                  />
                </td>
              </tr>
              {open ? (
                <tr>
                  <td id={panelId} colSpan={7} className="px-3 pb-4">
                    {/* On a phone the table is wider than the screen: the details (their chart
                          too) stay in view, as wide as the region, while the columns scroll. */}
                    <div className="sticky left-3 w-[calc(100cqw-1.5rem)]">{renderExpanded(item)}</div>
                  </td>
                </tr>
              ) : null}
            </tbody>
          );
        })}
      </DataTable>
    </div>
  );
}

/**
 * A token whose answer never reached a screen (lost, with the dialog's key): nobody has it. `Rotate
 * and expire this token now` replaces it with one that is shown (during a rotation, the new token only).
 */
function NeverShown({
  item,
  canRotate,
  onRotate,
}: {
  item: IntegrationItem;
  canRotate: boolean;
  onRotate: () => void;
}) {
  return (
    <span className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
      <span className="inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 ring-1 ring-amber-300">
        Token never shown
      </span>
      {canRotate ? (
        <button
          type="button"
          onClick={onRotate}
          aria-describedby={integrationTitleId(item.id)}
          className="min-h-6 text-left text-xs font-medium text-brand-700 underline underline-offset-2"
        >
          Rotate and expire this token now
        </button>
      ) : null}
    </span>
  );
}
