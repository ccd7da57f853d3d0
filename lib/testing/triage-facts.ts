import fc from "fast-check";
import { integrationStatuses, type StoredStatus } from "@/lib/integrations/catalog";
import type { TriageFacts } from "@/lib/integrations/triage";

/** Generated integrations for the triage rules' properties (lib/integrations/*.test.ts). */

const DAY = 86_400_000;

/** The examples' clock: a Tuesday afternoon, UTC. */
export const triageNow = new Date("2026-11-24T15:30:00.000Z");
/** `days` days before `triageNow`, ISO. */
export const daysAgo = (days: number) => new Date(triageNow.getTime() - days * DAY).toISOString();
/** The stored expiry of an `Expires` date N UTC days after `triageNow`'s day: midnight UTC after that day. */
export const expiresOnDay = (n: number) => new Date(Date.UTC(2026, 10, 24 + n + 1)).toISOString();

/** An active integration made 10 days ago, used yesterday, with `over` changed. */
export const triageFactsWith = (over: Partial<TriageFacts>): TriageFacts => ({
  name: "Reporting",
  description: "Nightly export to the warehouse",
  scopes: ["contacts.readonly", "locations.readonly"],
  createdAt: daysAgo(10),
  lastUsedAt: daysAgo(1),
  tokenCreatedAt: daysAgo(10),
  tokenHint: "pit-…9f3a",
  expiresAt: null,
  status: "active",
  ...over,
});

/** Every status an integration may store (the catalogue's, but the clock's `expired`). */
const storedStatuses = integrationStatuses.filter((s): s is StoredStatus => s !== "expired");

/** An instant within a few years of 2026, any time of day. */
export const clock = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) => new Date(ms));

/** An integration's facts, its dates placed around `at` (expiry on a UTC day boundary, as stored). */
export const factsAt = (at: Date) =>
  fc
    .record({
      name: fc.string({ maxLength: 12 }),
      description: fc.constantFrom("", "Nightly export", "CRM sync"),
      scopes: fc.subarray(["contacts.readonly", "locations.readonly", "users.write"]),
      hint: fc.stringMatching(/^[0-9a-f]{4}$/),
      createdDaysAgo: fc.double({ min: 0, max: 400, noNaN: true }),
      tokenShare: fc.double({ min: 0, max: 1, noNaN: true }),
      usedShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      expiresDay: fc.option(fc.integer({ min: -40, max: 60 }), { nil: null }),
      status: fc.constantFrom(...storedStatuses),
    })
    .map((r): TriageFacts => {
      const created = at.getTime() - r.createdDaysAgo * DAY;
      const since = (share: number) => new Date(created + share * (at.getTime() - created));
      const today = Math.floor(at.getTime() / DAY) * DAY;
      return {
        name: r.name,
        description: r.description,
        scopes: r.scopes,
        createdAt: new Date(created),
        tokenCreatedAt: since(r.tokenShare),
        lastUsedAt: r.usedShare === null ? null : since(r.usedShare),
        tokenHint: `pit-…${r.hint}`,
        expiresAt: r.expiresDay === null ? null : new Date(today + (r.expiresDay + 1) * DAY),
        status: r.status,
      };
    });

/** One integration and the clock it is read at. */
export const oneAt = clock.chain((at) => fc.tuple(fc.constant(at), factsAt(at)));
/** Up to `maxLength` integrations and the clock they are read at. */
export const manyAt = (maxLength = 30) =>
  clock.chain((at) => fc.tuple(fc.constant(at), fc.array(factsAt(at), { maxLength })));
