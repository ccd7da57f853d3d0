import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { manyAt } from "@/lib/testing/triage-facts";
import {
  defaultListQuery,
  LIST_PAGE_SIZE,
  type ListQuery,
  listOrders,
  listPage,
  listQueryOf,
  listSearchParams,
  sortedColumn,
} from "./list-page";
import {
  compareExpires,
  compareLastUsed,
  compareNames,
  extraFilters,
  inFilter,
  matchesSearch,
  needsAttention,
  statusFilters,
  type TriageFacts,
} from "./triage";

/** The list as the server pages it: the address read and written, and the page over every shape. */

const statuses = [...statusFilters, ...extraFilters].map((f) => f.value);
const query = fc.record({
  search: fc.oneof(fc.constant(""), fc.string({ maxLength: 200 }), fc.constantFrom("sync", "contacts", "0", "a b")),
  status: fc.constantFrom(...statuses),
  order: fc.constantFrom(...listOrders),
  page: fc.integer({ min: 0, max: 20 }),
}) satisfies fc.Arbitrary<ListQuery>;

/** A value an address may hold for one parameter: absent, a string of any kind, or repeated. */
const paramValue = fc.oneof(
  fc.constant(undefined),
  fc.string(),
  fc.constantFrom("0", "-1", "1.5", "1e3", "NaN", "99999999999", " 2", "urgency", "name-desc", "revoked"),
  fc.array(fc.string(), { maxLength: 3 }),
);

describe("the list's address", () => {
  it("reads back what it wrote, and leaves the defaults out", () => {
    fc.assert(
      fc.property(query, (q) => {
        const params = listSearchParams(q);
        expect(listQueryOf(Object.fromEntries(params))).toEqual(q);
        for (const [key, value] of params) expect(value, key).not.toBe("");
      }),
    );
    expect(listSearchParams(defaultListQuery).size).toBe(0);
    expect(listQueryOf(undefined)).toEqual(defaultListQuery);
  });

  it("reads any address as a valid query, never throwing", () => {
    fc.assert(
      fc.property(fc.record({ q: paramValue, status: paramValue, sort: paramValue, page: paramValue }), (params) => {
        const q = listQueryOf(params);
        expect(statuses).toContain(q.status);
        expect(listOrders).toContain(q.order);
        expect(Number.isInteger(q.page) && q.page >= 0 && q.page < 10_000).toBe(true);
        expect(q.search.length).toBeLessThanOrEqual(200);
      }),
    );
    expect(listQueryOf({ page: "3", sort: ["name-desc", "x"], status: "expired", q: "sync" })).toEqual({
      search: "sync",
      status: "expired",
      order: "name-desc",
      page: 2,
    });
  });

  it("an order names its column and direction", () => {
    expect(sortedColumn("lastUsed-desc")).toEqual({ column: "lastUsed", desc: true });
    expect(sortedColumn("urgency")).toBeNull();
  });
});

const compare = {
  name: (a: TriageFacts, b: TriageFacts) => compareNames(a.name, b.name),
  lastUsed: (a: TriageFacts, b: TriageFacts) => compareLastUsed(a.lastUsedAt, b.lastUsedAt),
  expires: (a: TriageFacts, b: TriageFacts) => compareExpires(a.expiresAt, b.expiresAt),
};
const self = (f: TriageFacts) => f;

describe("a page of the list", () => {
  it("the pages together are exactly the matching integrations, in the chosen order", () => {
    fc.assert(
      fc.property(manyAt(130), query, ([at, all], q) => {
        const first = listPage(all, self, { ...q, page: 0 }, at);
        const matching = all.filter((f) => inFilter(f, q.status, at) && matchesSearch(f, q.search));
        expect(first.matching).toBe(matching.length);
        expect(first.total).toBe(all.length);
        expect(first.attention).toEqual(needsAttention(all, at));
        expect(first.pageCount).toBe(Math.max(1, Math.ceil(matching.length / LIST_PAGE_SIZE)));
        const pages = Array.from({ length: first.pageCount }, (_, page) => listPage(all, self, { ...q, page }, at));
        const rows = pages.flatMap((p) => p.rows);
        expect(new Set(rows)).toEqual(new Set(matching));
        expect(rows).toHaveLength(matching.length);
        for (const p of pages.slice(0, -1)) expect(p.rows).toHaveLength(LIST_PAGE_SIZE);
        const sorted = sortedColumn(q.order);
        if (sorted) {
          for (let i = 1; i < rows.length; i++) {
            const order = compare[sorted.column](rows[i - 1] as TriageFacts, rows[i] as TriageFacts);
            expect(sorted.desc ? order >= 0 : order <= 0).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("a page past the last reads as the last; a linked integration's page is the one that holds it", () => {
    fc.assert(
      fc.property(manyAt(130), query, fc.nat(), ([at, all], q, pick) => {
        const last = listPage(all, self, { ...q, page: 10_000 }, at);
        expect(last.page).toBe(last.pageCount - 1);
        const matching = listPage(all, self, { ...q, page: 0 }, at).matching;
        if (matching === 0) return;
        const every = Array.from({ length: last.pageCount }, (_, page) => listPage(all, self, { ...q, page }, at).rows);
        const target = every.flat()[pick % matching] as TriageFacts;
        const shown = listPage(all, self, { ...q, page: 0 }, at, (f) => f === target);
        expect(shown.rows).toContain(target);
      }),
      { numRuns: 40 },
    );
  });
});
