"use client";

import { type SortingState, type Updater, useTable } from "@tanstack/react-table";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useMemo, useOptimistic, useRef, useState, useTransition } from "react";
import { DataTable } from "@/components/ui/data-table";
import type { LifecycleKind } from "@/lib/integrations/catalog";
import { LIST_PAGE_SIZE, type ListQuery, listSearchParams, type SortableColumn } from "@/lib/integrations/list-page";
import {
  extraFilters,
  integrationStatus,
  isStatusFilter,
  rowSignals,
  type StatusFilter,
  statusFilters,
} from "@/lib/integrations/triage";
import { IntegrationRow } from "./integration-row";
import { NeedsAttention, Pager, showingWords } from "./table-controls";
import {
  ariaSort,
  orderOf,
  sortableColumns,
  sortingFeatures,
  sortingOf,
  sortOptions,
  type TriageRow,
} from "./table-sorting";
import { triageFacts } from "./triage-facts";
import type { IntegrationItem, IntegrationList } from "./types";

/** How long typing pauses before the search is sent: one request per word, not per key. */
const SEARCH_PAUSE_MS = 250;

const fieldClass =
  "rounded-md border-0 bg-surface py-2 pr-8 pl-3 text-sm font-normal text-slate-900 ring-1 ring-slate-500 ring-inset focus:ring-2 focus:ring-brand-600";

/**
 * The list as a table built for triage: `Needs attention` with links that apply a filter,
 * `Search integrations`, the `Status` filter, one row per integration with its actions in a menu,
 * sortable by `Name`, `Last used` and `Expires` (most urgent first until one is chosen), a page of
 * 50 at a time. The server searches, filters, sorts and pages every integration
 * (lib/integrations/list-page.ts): each choice goes into the address (`?q=&status=&sort=&page=`),
 * so a reload or a shared link keeps it, and the server answers with that page. The name opens the
 * details (or the edit form) below the row. Times read relative to the render time (`now`), the
 * same on the server and in the browser.
 */
export function IntegrationTable({
  list,
  now,
  expanded,
  renderExpanded,
  onToggleDetails,
  onEdit,
  onAction,
}: {
  list: IntegrationList;
  now: string;
  /** The integration whose details or edit form are open, if any. */
  expanded: string | null;
  renderExpanded: (item: IntegrationItem) => ReactNode;
  onToggleDetails: (id: string) => void;
  onEdit: (id: string, focus?: "expires") => void;
  onAction: (kind: LifecycleKind, id: string) => void;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [loading, startLoading] = useTransition();
  // The choice shows at once; the page follows when the server answers.
  const [query, showQuery] = useOptimistic(list.query);
  // What is typed stays as typed, whatever page arrives meanwhile.
  const [search, setSearch] = useState(list.query.search);
  const typing = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(typing.current), []);
  const clock = useMemo(() => new Date(now), [now]);
  const rows = useMemo(
    () =>
      list.rows.map((item): TriageRow => {
        const facts = triageFacts(item);
        return { item, facts, status: integrationStatus(facts, clock), signals: rowSignals(facts, clock) };
      }),
    [list.rows, clock],
  );

  function go(changes: Partial<ListQuery>) {
    // Any change but the page's own starts again at the first page.
    const next = { ...query, search, page: 0, ...changes };
    const params = listSearchParams(next);
    startLoading(() => {
      showQuery(next);
      router.replace(params.size ? `${pathname}?${params}` : pathname, { scroll: false });
    });
  }

  function searchFor(text: string) {
    setSearch(text);
    window.clearTimeout(typing.current);
    typing.current = window.setTimeout(() => go({ search: text }), SEARCH_PAUSE_MS);
  }

  const applyFilter = (status: StatusFilter) => go({ status });

  const table = useTable({
    features: sortingFeatures,
    columns: sortableColumns,
    data: rows,
    getRowId: (r) => r.item.id,
    state: { sorting: sortingOf(query.order) },
    onSortingChange: (updater: Updater<SortingState>) =>
      go({ order: orderOf(typeof updater === "function" ? updater(sortingOf(query.order)) : updater) }),
    // The rows arrive sorted by the server.
    manualSorting: true,
    // Each header: ascending, then descending, then back to most urgent first.
    sortDescFirst: false,
    enableSortingRemoval: true,
    enableMultiSort: false,
  });
  const order = sortOptions.find((o) => o.value === query.order) ?? sortOptions[0];
  const from = list.page * LIST_PAGE_SIZE;

  const sortable = (label: string, column: SortableColumn, className?: string) => ({
    label,
    className,
    sort: {
      direction: ariaSort(query.order, column),
      onToggle: () => table.getColumn(column)?.toggleSorting(undefined, false),
    },
  });

  return (
    // Busy while the server works out the page a choice asked for.
    <div className="space-y-4" aria-busy={loading || undefined}>
      <NeedsAttention lines={list.attention} current={query.status} onApply={applyFilter} />

      <search className="flex flex-wrap items-end gap-3">
        <label className="flex min-w-0 flex-1 basis-56 flex-col gap-1 text-sm font-medium text-slate-700">
          Search integrations
          <input
            type="search"
            value={search}
            onChange={(e) => searchFor(e.target.value)}
            placeholder="Name, description, scope or last 4 of a token"
            className="w-full rounded-md border-0 bg-surface px-3 py-2 text-sm font-normal text-slate-900 ring-1 ring-slate-500 ring-inset placeholder:text-slate-500 focus:ring-2 focus:ring-brand-600"
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
          Status
          <select
            value={query.status}
            onChange={(e) => applyFilter(isStatusFilter(e.target.value) ? e.target.value : "all")}
            className={fieldClass}
          >
            {statusFilters.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
            {extraFilters
              .filter((f) => f.value === query.status)
              .map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
          </select>
        </label>
        {/* The column headers sort the table; a phone's cards have none, so the same orders are here. */}
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700 sm:hidden">
          Sort by
          <select
            value={order.value}
            onChange={(e) => go({ order: (sortOptions.find((o) => o.value === e.target.value) ?? order).value })}
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
        {showingWords(from, rows.length, list.matching, list.total)}
        {list.matching ? `, ${order.value === "urgency" ? "most urgent first" : `sorted by ${order.label}`}` : null}
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
        className={`@container max-sm:rounded-none max-sm:bg-transparent max-sm:shadow-none max-sm:ring-0 ${loading ? "opacity-60" : ""}`}
        tableClassName="max-sm:block"
        headClassName="font-semibold text-slate-600 max-sm:hidden"
        cellPadding="px-2.5 py-2"
        after={
          list.matching === 0 ? (
            <p className="p-6 text-center text-sm text-slate-600 max-sm:rounded-lg max-sm:border max-sm:border-slate-200 max-sm:bg-surface">
              No integration matches this search and filter.
            </p>
          ) : null
        }
      >
        {table.getRowModel().rows.map(({ original: row }) => (
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

      <Pager page={list.page} pageCount={list.pageCount} onPage={(page) => go({ page })} />
    </div>
  );
}
