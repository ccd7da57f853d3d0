import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { heldStatuses, statusCatalog } from "./catalog";
import { type ListQuery, listOrders, listPage, triageFactsOfView } from "./list-page";
import { readListPage } from "./list-page-read";
import { listPrivateIntegrations } from "./read";
import { extraFilters, statusFilters } from "./triage";
import { toView } from "./views";

/**
 * The database's page (./list-page-read.ts) against the rules' page (`listPage` over every
 * integration as the API reads them), on the real database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): generated integrations and tokens × a clock × queries, pages of any size.
 */

const DAY = 86_400_000;

/** Letters that case, accents, digits read as numbers, Greek final sigma, a dotted capital I, ß. */
const nameChar = fc.constantFrom(..."aAbBzZéÉäÄßΣσςİıiIkK0129 -_.".split(""), "Sync ", "10", "2", "ab", "AB");
const name = fc.array(nameChar, { maxLength: 6 }).map((parts) => parts.join(""));
const scopes = ["contacts.readonly", "locations.readonly", "users.write", "Oauth.Write"];

/** Milliseconds relative to the anchor of one run (a whole number: timestamp(3)). */
const offset = (minDays: number, maxDays: number) =>
  fc.integer({ min: Math.round(minDays * DAY), max: Math.round(maxDays * DAY) });
/** Whole days before the anchor, so that the rules' boundaries (30 and 90 days) are met exactly. */
const upToDaysAgo = (max: number) => fc.integer({ min: 0, max }).map((days) => days * DAY);
/** A moment before the anchor: any, or whole days. */
const ago = fc.oneof(offset(0, 400), upToDaysAgo(400), fc.constantFrom(30 * DAY, 90 * DAY));

/** Midnight UTC (as an `Expires` is stored), or any moment. */
const expiry = fc.oneof(
  fc.integer({ min: -40, max: 60 }).map((day) => ({ day })),
  offset(-20, 20).map((at) => ({ at })),
);

/** True in `weight` cases of ten. */
const sometimes = (weight: number) =>
  fc.oneof({ arbitrary: fc.constant(true), weight }, { arbitrary: fc.constant(false), weight: 10 - weight });

const token = fc.record({
  createdAgo: ago,
  usedAgo: fc.option(ago, { nil: null }),
  hint: fc.stringMatching(/^[0-9a-zA-Z_-]{4}$/),
  revoked: sometimes(1),
});

const integration = fc.record({
  name,
  description: fc.constantFrom("", "Nightly export", "CRM SYNC", "Ölçüm"),
  scopes: fc.subarray(scopes),
  createdAgo: ago,
  expires: fc.option(expiry, { nil: null }),
  /** Held in a status of the catalogue (one column set each), in two cases of ten. */
  held: fc.oneof(
    { arbitrary: fc.constant(null), weight: 8 },
    { arbitrary: fc.constantFrom(...heldStatuses), weight: 2 },
  ),
  current: fc.option(token, { nil: null, freq: 8 }),
  previous: fc.option(fc.record({ token, expires: fc.option(offset(-10, 10), { nil: null }) }), { nil: null, freq: 2 }),
});

const statuses = [...statusFilters, ...extraFilters].map((f) => f.value);

/** A search: words from what the rows hold, in any case, or anything at all. */
const search = fc.oneof(
  fc.constant(""),
  fc.constantFrom("sync", "SYNC 2", "a", "é", "ss", "σ", "ς", "i̇", "contacts", "OAUTH", "readonly users", "ölç", "—"),
  fc.stringMatching(/^[0-9a-zA-Z_-]{1,3}$/),
  fc.string({ maxLength: 6, unit: "binary" }),
);

const query = fc.record({
  search,
  status: fc.oneof({ arbitrary: fc.constant("all" as const), weight: 3 }, fc.constantFrom(...statuses)),
  order: fc.constantFrom(...listOrders),
  page: fc.integer({ min: 0, max: 4 }),
}) satisfies fc.Arbitrary<ListQuery>;

type Generated = typeof integration extends fc.Arbitrary<infer T> ? T : never;

/** Writes `rows` as the only integrations of `companyId`, placed around `anchor`. */
async function store(companyId: string, createdBy: string, anchor: number, rows: Generated[], run: number) {
  await db().privateIntegration.deleteMany({ where: { companyId } });
  const today = Math.floor(anchor / DAY) * DAY;
  const at = (ms: number) => new Date(ms);
  const integrations = rows.map((r, i) => {
    const createdAt = anchor - r.createdAgo;
    const expiresAt =
      r.expires === null ? null : "day" in r.expires ? today + (r.expires.day + 1) * DAY : anchor + r.expires.at;
    return { id: `pi${run}x${i}`, r, createdAt, expiresAt };
  });
  await db().privateIntegration.createMany({
    data: integrations.map(({ id, r, createdAt, expiresAt }) => ({
      id,
      companyId,
      locationId: null,
      name: r.name,
      description: r.description,
      scopes: r.scopes,
      createdByUserId: createdBy,
      createdAt: at(createdAt),
      expiresAt: expiresAt === null ? null : at(expiresAt),
      ...Object.fromEntries(
        heldStatuses.map((status) => [statusCatalog[status].held.by, r.held === status ? at(anchor - DAY) : null]),
      ),
      revokedReason: r.held === "revoked" ? "Reported as leaked." : null,
    })),
  });
  await db().privateIntegrationToken.createMany({
    data: integrations.flatMap(({ id, r, createdAt }) => [
      ...(r.current
        ? [
            {
              integrationId: id,
              slot: "current" as const,
              tokenHash: `${id}-current`,
              hint: `pit-…${r.current.hint}`,
              createdAt: at(anchor - r.current.createdAgo),
              lastUsedAt: r.current.usedAgo === null ? null : at(anchor - r.current.usedAgo),
              revokedAt: r.current.revoked ? at(anchor) : null,
            },
          ]
        : []),
      ...(r.previous
        ? [
            {
              integrationId: id,
              slot: "previous" as const,
              tokenHash: `${id}-previous`,
              hint: `pit-…${r.previous.token.hint}`,
              createdAt: at(createdAt),
              lastUsedAt: r.previous.token.usedAgo === null ? null : at(anchor - r.previous.token.usedAgo),
              revokedAt: r.previous.token.revoked ? at(anchor) : null,
              expiresAt: r.previous.expires === null ? null : at(anchor + r.previous.expires),
            },
          ]
        : []),
    ]),
  });
  return integrations.map((i) => i.id);
}

describe("readListPage: the list's page worked out by the database", () => {
  it("is the page the triage rules work out, for any integrations, clock and query", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const where = { companyId: company.id, locationId: null };
    const target = { level: "agency", companyId: company.id } as const;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }),
        fc.array(integration, { maxLength: 30, size: "max" }),
        fc.oneof(fc.constant(0), offset(-3, 3)),
        fc.array(fc.tuple(query, fc.integer({ min: 1, max: 8 }), fc.option(fc.nat(), { nil: undefined })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (anchor, rows, later, queries) => {
          const ids = await store(company.id, owner.id, anchor, rows, run++);
          const now = new Date(anchor + later);
          const all = await listPrivateIntegrations(owner, target, now);
          for (const [q, pageSize, pick] of queries) {
            const showingId = pick === undefined || ids.length === 0 ? undefined : ids[pick % ids.length];
            const expected = listPage(
              all,
              triageFactsOfView,
              q,
              now,
              showingId ? (i) => i.id === showingId : undefined,
              pageSize,
            );
            const { page } = await readListPage(where, q, now, showingId, pageSize);
            const context = JSON.stringify({ q, pageSize, showingId });
            expect(
              page.rows.map((r) => r.id),
              context,
            ).toEqual(expected.rows.map((r) => r.id));
            expect({ ...page, rows: undefined }, context).toEqual({ ...expected, rows: undefined });
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 240_000);

  it("reads the rows of the page as the list reads them, pages of 50 by default", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const where = { companyId: company.id, locationId: null };
    const anchor = Date.UTC(2026, 10, 24, 15, 30);
    const generated = fc.sample(integration, { numRuns: 120, seed: 7 });
    await store(company.id, owner.id, anchor, generated, 0);
    const now = new Date(anchor);
    const all = await listPrivateIntegrations(owner, { level: "agency", companyId: company.id }, now);
    for (const q of [
      { search: "", status: "all", order: "urgency", page: 1 },
      { search: "sync", status: "all", order: "name-desc", page: 0 },
    ] satisfies ListQuery[]) {
      const { page, creators } = await readListPage(where, q, now);
      const expected = listPage(all, triageFactsOfView, q, now);
      expect(page.rows.length).toBeGreaterThan(0);
      expect(page.rows.map((row) => toView(row, now, creators))).toEqual(expected.rows);
    }
  });
});
