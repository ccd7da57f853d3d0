import {
  createColumnHelper,
  createSortedRowModel,
  rowSortingFeature,
  type SortingState,
  tableFeatures,
} from "@tanstack/react-table";
import {
  compareExpires,
  compareLastUsed,
  compareNames,
  type IntegrationStatus,
  type RowSignal,
  type TriageFacts,
} from "@/lib/integrations/triage";
import type { IntegrationItem } from "./types";

/** One integration as the table sorts and draws it: the item and what the triage rules say of it. */
export interface TriageRow {
  item: IntegrationItem;
  facts: TriageFacts;
  status: IntegrationStatus;
  signals: RowSignal[];
}

/** The headless table's features: sorting only (search, filter and paging are the screen's own). */
export const sortingFeatures = tableFeatures({ rowSortingFeature, sortedRowModel: createSortedRowModel() });

const helper = createColumnHelper<typeof sortingFeatures, TriageRow>();

/**
 * The sortable columns, each ascending by the triage rules' order; ties keep the order the rows
 * came in (most urgent first).
 */
export const sortableColumns = helper.columns([
  helper.accessor((r) => r.item.name, {
    id: "name",
    sortFn: (a, b) => compareNames(a.original.item.name, b.original.item.name),
  }),
  helper.accessor((r) => r.item.lastUsedAt, {
    id: "lastUsed",
    sortFn: (a, b) => compareLastUsed(a.original.facts.lastUsedAt, b.original.facts.lastUsedAt),
  }),
  helper.accessor((r) => r.item.expiresAt, {
    id: "expires",
    sortFn: (a, b) => compareExpires(a.original.facts.expiresAt, b.original.facts.expiresAt),
  }),
]);
export type SortableColumn = "name" | "lastUsed" | "expires";

/**
 * The same orders as the `Sort by` select offers them on a phone, where the column headers are not
 * shown; `urgency` is no column sort at all (the rows' own order).
 */
export const sortOptions = [
  { value: "urgency", label: "Most urgent first", sorting: [] },
  { value: "name-asc", label: "Name, A to Z", sorting: [{ id: "name", desc: false }] },
  { value: "name-desc", label: "Name, Z to A", sorting: [{ id: "name", desc: true }] },
  { value: "lastUsed-asc", label: "Last used, longest ago first", sorting: [{ id: "lastUsed", desc: false }] },
  { value: "lastUsed-desc", label: "Last used, most recent first", sorting: [{ id: "lastUsed", desc: true }] },
  { value: "expires-asc", label: "Expires, soonest first", sorting: [{ id: "expires", desc: false }] },
  { value: "expires-desc", label: "Expires, latest first", sorting: [{ id: "expires", desc: true }] },
] as const satisfies readonly { value: string; label: string; sorting: SortingState }[];

/** The `Sort by` option the table's sorting state is (urgency when none). */
export function sortOptionOf(sorting: SortingState): (typeof sortOptions)[number] {
  const [first] = sorting;
  return (
    sortOptions.find((o) => o.sorting[0]?.id === first?.id && o.sorting[0]?.desc === first?.desc) ?? sortOptions[0]
  );
}

/** `aria-sort` of a column's header. */
export function ariaSort(sorting: SortingState, column: SortableColumn): "ascending" | "descending" | "none" {
  const sort = sorting.find((s) => s.id === column);
  return sort ? (sort.desc ? "descending" : "ascending") : "none";
}
