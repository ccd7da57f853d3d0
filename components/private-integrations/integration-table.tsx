"use client";

import { type SortingState, type Updater, useTable } from "@tanstack/react-table";
import { type ReactNode, useMemo, useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import {
  inFilter,
  integrationStatus,
  isStatusFilter,
  leakedFilter,
  matchesSearch,
  needsAttention,
  rowSignals,
  type StatusFilter,
  sortByUrgency,
  statusFilters,
} from "@/lib/integrations/triage";
import type { LifecycleKind } from "./integration-card";
import { IntegrationRow } from "./integration-row";
import { NeedsAttention, Pager, showingWords } from "./table-controls";
import {
  ariaSort,
  type SortableColumn,
  sortableColumns,
  sortingFeatures,
  sortOptionOf,
  sortOptions,
  type TriageRow,
} from "./table-sorting";
import { triageFacts } from "./triage-facts";
import type { IntegrationItem } from "./types";

/** Rows drawn at a time: the page stays as quick to draw with 500 integrations as with 50. */
export const PAGE_SIZE = 50;

const fieldClass =
  "rounded-md border-0 bg-surface py-2 pr-8 pl-3 text-sm font-normal text-slate-900 ring-1 ring-slate-500 ring-inset focus:ring-2 focus:ring-brand-600";

/**
 * The list as a table built for triage: `Needs attention` with links that apply a filter,
 * `Search integrations`, the `Status` filter, one row per integration with its actions in a menu,
 * sortable by `Name`, `Last used` and `Expires` (most urgent first until one is chosen) and drawn
 * a page of 50 at a time; search, filter and sort apply to every row first. The name opens the
 * details (or the edit form) below the row. Times read relative to the render time (`now`), the
 * same on the server and in the browser.
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
  const [sorting, setSorting] = useState<SortingState>([]);
  const clock = useMemo(() => new Date(now), [now]);
  // Most urgent first: the order the rows keep until a column is sorted (and between equal values).
  const rows = useMemo(
    () =>
      sortByUrgency(
        items.map((item): TriageRow => {
          const facts = triageFacts(item);
          return { item, facts, status: integrationStatus(facts, clock), signals: rowSignals(facts, clock) };
        }),
        (r) => r.facts,
        clock,
      ),
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
  const shown = useMemo(
    () => rows.filter((r) => inFilter(r.facts, filter, clock) && matchesSearch(r.facts, query)),
    [rows, filter, query, clock],
  );
  // Opened on an integration (a notification's link): its page.
  const [page, setPage] = useState(() => {
    const at = expanded ? shown.findIndex((r) => r.item.id === expanded) : -1;
    return at > 0 ? Math.floor(at / PAGE_SIZE) : 0;
  });

  function sortBy(updater: Updater<SortingState>) {
    setSorting((previous) => (typeof updater === "function" ? updater(previous) : updater));
    setPage(0);
  }

  const table = useTable({
    features: sortingFeatures,
    columns: sortableColumns,
    data: shown,
    getRowId: (r) => r.item.id,
    state: { sorting },
    onSortingChange: sortBy,
    // Each header: ascending, then descending, then back to most urgent first.
    sortDescFirst: false,
    enableSortingRemoval: true,
    enableMultiSort: false,
  });
  const sorted = table.getRowModel().rows;
  const pageCount = Math.max(1, Math.ceil(sorted.length / PAGE_SIZE));
  const current = Math.min(page, pageCount - 1);
  const from = current * PAGE_SIZE;
  const pageRows = sorted.slice(from, from + PAGE_SIZE);
  const order = sortOptionOf(sorting);

  function applyFilter(next: StatusFilter) {
    setFilter(next);
    setPage(0);
    // The filter is in the address too, so a reload or a shared link keeps it.
    const url = new URL(window.location.href);
    if (next === "all") url.searchParams.delete("status");
    else url.searchParams.set("status", next);
    window.history.replaceState(window.history.state, "", url);
  }

  const sortable = (label: string, column: SortableColumn, className?: string) => ({
    label,
    className,
    sort: {
      direction: ariaSort(sorting, column),
      onToggle: () => table.getColumn(column)?.toggleSorting(undefined, false),
    },
  });

  return (
    <div className="space-y-4">
      <NeedsAttention lines={attention} current={filter} onApply={applyFilter} />

      <search className="flex flex-wrap items-end gap-3">
        <label className="flex min-w-0 flex-1 basis-56 flex-col gap-1 text-sm font-medium text-slate-700">
          Search integrations
          <input
            type="search"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setPage(0);
            }}
            placeholder="Name, description, scope or last 4 of a token"
            className="w-full rounded-md border-0 bg-surface px-3 py-2 text-sm font-normal text-slate-900 ring-1 ring-slate-500 ring-inset placeholder:text-slate-500 focus:ring-2 focus:ring-brand-600"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
          Status
          <select
            value={filter}
            onChange={(e) => applyFilter(isStatusFilter(e.target.value) ? e.target.value : "all")}
            className={fieldClass}
          >
            {statusFilters.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
            {filter === leakedFilter.value ? <option value={leakedFilter.value}>{leakedFilter.label}</option> : null}
          </select>
        </label>
        {/* The column headers sort the table; a phone's cards have none, so the same orders are here. */}
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700 sm:hidden">
          Sort by
          <select
            value={order.value}
            onChange={(e) => {
              const next = sortOptions.find((o) => o.value === e.target.value) ?? sortOptions[0];
              sortBy(next.sorting.map((s) => ({ ...s })));
            }}
            className={fieldClass}
          >
            {sortOptions.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      </search>

      <p className="text-sm text-slate-600" aria-live="polite">
        {showingWords(from, pageRows.length, shown.length, rows.length)}
        {shown.length ? `, ${order.value === "urgency" ? "most urgent first" : `sorted by ${order.label}`}` : null}
      </p>

      {/* A size container: the open details take the region's visible width (100cqw), not the table's.
          On a phone the region is no box of its own: each row is a card. */}
      <DataTable
        label="Private integrations"
        caption="Private integrations"
        columns={[
          sortable("Name", "name"),
          { label: "Status" },
          { label: "Scopes" },
          sortable("Last used", "lastUsed", "whitespace-nowrap"),
          sortable("Expires", "expires"),
          { label: "Requests (7 days)", className: "text-right" },
          { label: "Actions", srOnly: true, className: "sticky right-0 bg-slate-50" },
        ]}
        className="@container max-sm:rounded-none max-sm:bg-transparent max-sm:shadow-none max-sm:ring-0"
        tableClassName="max-sm:block"
        headClassName="font-semibold text-slate-600 max-sm:hidden"
        cellPadding="px-2.5 py-2"
        after={
          shown.length === 0 ? (
            <p className="p-6 text-center text-sm text-slate-600 max-sm:rounded-lg max-sm:border max-sm:border-slate-200 max-sm:bg-surface">
              No integration matches this search and filter.
            </p>
          ) : null
        }
      >
        {pageRows.map(({ original: row }) => (
          <IntegrationRow
            key={row.item.id}
            row={row}
            now={now}
            open={expanded === row.item.id}
            expanded={expanded === row.item.id ? renderExpanded(row.item) : null}
            onToggleDetails={() => onToggleDetails(row.item.id)}
            onEdit={(focus) => onEdit(row.item.id, focus)}
            onAction={(kind) => onAction(kind, row.item.id)}
          />
        ))}
      </DataTable>

      <Pager page={current} pageCount={pageCount} onPage={setPage} />
    </div>
  );
}
