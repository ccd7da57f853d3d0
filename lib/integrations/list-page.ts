import {
  type AttentionKind,
  compareExpires,
  compareLastUsed,
  compareNames,
  inFilter,
  isStatusFilter,
  matchesSearch,
  needsAttention,
  type StatusFilter,
  sortByUrgency,
  type TriageFacts,
} from "./triage";
import type { PrivateIntegrationView } from "./views";

/**
 * One page of the Private Integrations list, worked out on the server: search, the `Status`
 * filter and the order apply to every integration, then 50 rows are sent. The browser receives the
 * page and the counts, never the whole list (bench-results.md › The Private Integrations screen).
 */

/** Rows on a page: the screen stays as quick to draw with 500 integrations as with 50. */
export const LIST_PAGE_SIZE = 50;

/** The list's orders: most urgent first (no column sorted), or one column up or down. */
export const listOrders = [
  "urgency",
  "name-asc",
  "name-desc",
  "lastUsed-asc",
  "lastUsed-desc",
  "expires-asc",
  "expires-desc",
] as const;
export type ListOrder = (typeof listOrders)[number];
export type SortableColumn = "name" | "lastUsed" | "expires";

const isListOrder = (value: unknown): value is ListOrder => listOrders.some((o) => o === value);

/** What the address says of the list: `?q=…&status=…&sort=…&page=…` (1-based; defaults left out). */
export interface ListQuery {
  search: string;
  status: StatusFilter;
  order: ListOrder;
  /** 0-based. */
  page: number;
}

export const defaultListQuery: ListQuery = { search: "", status: "all", order: "urgency", page: 0 };

/** Longest search kept: a pasted paragraph is no search, and must not cost the server. */
const SEARCH_MAX = 200;
/** Highest page number read from an address; past the last page reads as the last page anyway. */
const PAGE_MAX = 10_000;

type SearchParams = Record<string, string | string[] | undefined> | undefined;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The list's query from the address; anything unknown or malformed reads as its default. */
export function listQueryOf(params: SearchParams): ListQuery {
  const status = one(params?.status);
  const order = one(params?.sort);
  const page = Number(one(params?.page));
  return {
    search: (one(params?.q) ?? "").slice(0, SEARCH_MAX),
    status: isStatusFilter(status) ? status : "all",
    order: isListOrder(order) ? order : "urgency",
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, PAGE_MAX) - 1 : 0,
  };
}

/** The address's parameters of a query (its defaults left out), the inverse of `listQueryOf`. */
export function listSearchParams(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.search) params.set("q", query.search);
  if (query.status !== "all") params.set("status", query.status);
  if (query.order !== "urgency") params.set("sort", query.order);
  if (query.page > 0) params.set("page", String(query.page + 1));
  return params;
}

/** The column an order sorts and which way (none for most urgent first). */
export function sortedColumn(order: ListOrder): { column: SortableColumn; desc: boolean } | null {
  if (order === "urgency") return null;
  const [column, direction] = order.split("-") as [SortableColumn, "asc" | "desc"];
  return { column, desc: direction === "desc" };
}

const comparators: Record<SortableColumn, (a: TriageFacts, b: TriageFacts) => number> = {
  name: (a, b) => compareNames(a.name, b.name),
  lastUsed: (a, b) => compareLastUsed(a.lastUsedAt, b.lastUsedAt),
  expires: (a, b) => compareExpires(a.expiresAt, b.expiresAt),
};

export interface ListPage<T> {
  /** The page's rows, in order. */
  rows: T[];
  /** `Needs attention`, over every integration (not only the matching ones). */
  attention: { kind: AttentionKind; count: number }[];
  /** How many match the search and the filter. */
  matching: number;
  /** How many integrations there are. */
  total: number;
  /** 0-based; within the pages there are. */
  page: number;
  pageCount: number;
}

/**
 * The page `query` asks for. Ties in a column's order keep the most urgent first. With `showing`
 * (a notification's link to one integration), the page is the one that holds it. The screen asks
 * the database for the same page (./list-page-read.ts, proven equal to this one), so that only the
 * page's rows are read.
 */
export function listPage<T>(
  all: readonly T[],
  factsOf: (row: T) => TriageFacts,
  query: ListQuery,
  now: Date,
  showing?: (row: T) => boolean,
  pageSize = LIST_PAGE_SIZE,
): ListPage<T> {
  const facts = new Map(all.map((row) => [row, factsOf(row)]));
  const factsOfRow = (row: T) => facts.get(row) as TriageFacts;
  const matching = sortByUrgency(
    all.filter((row) => inFilter(factsOfRow(row), query.status, now) && matchesSearch(factsOfRow(row), query.search)),
    factsOfRow,
    now,
  );
  const sorted = sortedColumn(query.order);
  if (sorted) {
    const compare = comparators[sorted.column];
    // Array.prototype.sort is stable: equal values keep the urgency order.
    matching.sort((a, b) => (sorted.desc ? -1 : 1) * compare(factsOfRow(a), factsOfRow(b)));
  }
  const pageCount = Math.max(1, Math.ceil(matching.length / pageSize));
  const shownAt = showing ? matching.findIndex(showing) : -1;
  const page = shownAt >= 0 ? Math.floor(shownAt / pageSize) : Math.min(query.page, pageCount - 1);
  return {
    rows: matching.slice(page * pageSize, (page + 1) * pageSize),
    attention: needsAttention([...facts.values()], now),
    matching: matching.length,
    total: all.length,
    page,
    pageCount,
  };
}

/** What the triage rules read of an integration as the server reads it. */
export function triageFactsOfView(view: PrivateIntegrationView): TriageFacts {
  return {
    name: view.name,
    description: view.description,
    scopes: view.scopes,
    createdAt: view.createdAt,
    lastUsedAt: view.lastUsedAt,
    tokenCreatedAt: view.token.createdAt,
    tokenHint: view.token.hint,
    expiresAt: view.expiresAt,
    status: view.status,
  };
}
