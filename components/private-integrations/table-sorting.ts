import { createColumnHelper, rowSortingFeature, type SortingState, tableFeatures } from "@tanstack/react-table";
import type { IntegrationStatus } from "@/lib/integrations/catalog";
import { type ListOrder, type SortableColumn, sortedColumn } from "@/lib/integrations/list-page";
import type { RowSignal, TriageFacts } from "@/lib/integrations/triage";
import type { IntegrationItem } from "./types";

/** One integration as the table draws it: the item and what the triage rules say of it. */
export interface TriageRow {
  item: IntegrationItem;
  facts: TriageFacts;
  status: IntegrationStatus;
  signals: RowSignal[];
}

/**
 * The headless table's features: sorting state only. The server sorts (and searches, filters and
 * pages: lib/integrations/list-page.ts); the table turns header presses into the next order.
 */
export const sortingFeatures = tableFeatures({ rowSortingFeature });

const helper = createColumnHelper<typeof sortingFeatures, TriageRow>();

/** The sortable columns (their rows arrive sorted: `manualSorting`). */
export const sortableColumns = helper.columns([
  helper.accessor((r) => r.item.name, { id: "name" }),
  helper.accessor((r) => r.item.lastUsedAt, { id: "lastUsed" }),
  helper.accessor((r) => r.item.expiresAt, { id: "expires" }),
]);

/**
 * The orders as the `Sort by` select offers them on a phone, where the column headers are not
 * shown; `urgency` is no column sort at all.
 */
export const sortOptions = [
  { value: "urgency", label: "Most urgent first" },
  { value: "name-asc", label: "Name, A to Z" },
  { value: "name-desc", label: "Name, Z to A" },
  { value: "lastUsed-asc", label: "Last used, longest ago first" },
  { value: "lastUsed-desc", label: "Last used, most recent first" },
  { value: "expires-asc", label: "Expires, soonest first" },
  { value: "expires-desc", label: "Expires, latest first" },
] as const satisfies readonly { value: ListOrder; label: string }[];

/** The table's sorting state of an order. */
export function sortingOf(order: ListOrder): SortingState {
  const sorted = sortedColumn(order);
  return sorted ? [{ id: sorted.column, desc: sorted.desc }] : [];
}

/** The order a sorting state is (most urgent first when none). */
export function orderOf(sorting: SortingState): ListOrder {
  const [first] = sorting;
  if (!first) return "urgency";
  const order = `${first.id}-${first.desc ? "desc" : "asc"}`;
  return sortOptions.find((o) => o.value === order)?.value ?? "urgency";
}

/** `aria-sort` of a column's header. */
export function ariaSort(order: ListOrder, column: SortableColumn): "ascending" | "descending" | "none" {
  const sorted = sortedColumn(order);
  if (sorted?.column !== column) return "none";
  return sorted.desc ? "descending" : "ascending";
}
