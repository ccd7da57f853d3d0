/**
 * The triage rules of the Private Integrations screen (SPEC.md › The Private Integrations screen,
 * built for triage): an integration's one status, what needs attention, the `Status` filter, the
 * search and the day count of `Expires`. Pure functions of plain data and the clock (`now`), so the
 * server and the browser agree and the rules are tested without a screen.
 */

import {
  type IntegrationStatus,
  integrationStatuses,
  isIntegrationStatus,
  type StoredStatus,
  shownStatus,
  statusCatalog,
} from "./catalog";

const DAY_MS = 24 * 60 * 60 * 1000;

/** `Expiring soon`: expires within this many days. */
export const EXPIRING_SOON_DAYS = 14;
/** `Rotation due`: the token was issued this many days ago or more. */
export const ROTATION_DUE_DAYS = 90;
/** `Unused`: created this many days ago or more and not used in as many days. */
export const UNUSED_DAYS = 30;

/** What the rules read of an integration; dates as ISO strings or Dates. */
export interface TriageFacts {
  name: string;
  description: string;
  scopes: readonly string[];
  createdAt: string | Date;
  lastUsedAt: string | Date | null;
  /** When its current token was issued. */
  tokenCreatedAt: string | Date;
  /** `pit-…abcd`. */
  tokenHint: string;
  /** The moment its tokens stop working (the end of the `Expires` day), or null for never. */
  expiresAt: string | Date | null;
  /** What the integration says by itself (./catalog.ts `storedStatus`): held, rotating or active. */
  status: StoredStatus;
}

const time = (value: string | Date) => (typeof value === "string" ? Date.parse(value) : value.getTime());

/** The UTC day number of an instant (days since 1970-01-01). */
const utcDay = (ms: number) => Math.floor(ms / DAY_MS);

/**
 * Whole UTC days from today to the last day the tokens work: an `Expires` date N days after today
 * reads `in N days` (0: the last day is today). Null for never; negative once it has passed.
 */
export function daysUntilExpiry(expiresAt: string | Date | null, now: Date): number | null {
  if (expiresAt === null) return null;
  // expiresAt is midnight UTC after the `Expires` day: the last working day is the day before it.
  return utcDay(time(expiresAt) - 1) - utcDay(now.getTime());
}

export function isExpired(facts: Pick<TriageFacts, "expiresAt">, now: Date): boolean {
  return facts.expiresAt !== null && time(facts.expiresAt) <= now.getTime();
}

export function integrationStatus(facts: TriageFacts, now: Date): IntegrationStatus {
  return shownStatus(facts.status, isExpired(facts, now));
}

/**
 * The kinds of `Needs attention`, in the order the region lists them: a token reported as leaked
 * (revoked) first, then what stopped working, then what soon will, then what is merely due.
 */
export const attentionKinds = ["revoked", "expired", "expiring-soon", "rotation-due", "unused"] as const;
export type AttentionKind = (typeof attentionKinds)[number];

/** The filters that are not a status: what needs doing besides it. */
type SignalFilter = "expiring-soon" | "rotation-due" | "unused";
export type StatusFilter = "all" | IntegrationStatus | SignalFilter;

/** The `Status` filter's options, exactly SPEC.md's, by value (catalog.test.ts: its statuses are the catalogue's options). */
export const statusFilters = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "rotating", label: "Rotating" },
  { value: "expiring-soon", label: "Expiring soon" },
  { value: "expired", label: "Expired" },
  { value: "rotation-due", label: "Rotation due" },
  { value: "unused", label: "Unused" },
] as const satisfies readonly { value: StatusFilter; label: string }[];
/**
 * The statuses that are not among SPEC.md's `Status` options (the revoked, `Reported as leaked`):
 * a link applies one (`Needs attention`), and the select then shows it as an extra option.
 */
export const extraFilters = integrationStatuses.flatMap((value) => {
  const { filter } = statusCatalog[value];
  return typeof filter === "string" ? [] : [{ value, label: filter.label }];
});

export function isStatusFilter(value: unknown): value is StatusFilter {
  return statusFilters.some((f) => f.value === value) || extraFilters.some((f) => f.value === value);
}

/** Whether an integration is in one filter (`all` takes every one). */
export function inFilter(facts: TriageFacts, filter: StatusFilter, now: Date): boolean {
  const status = integrationStatus(facts, now);
  if (filter === "all") return true;
  if (isIntegrationStatus(filter)) return status === filter;
  const live = statusCatalog[status].live;
  switch (filter) {
    case "expiring-soon": {
      const days = daysUntilExpiry(facts.expiresAt, now);
      return live && days !== null && days <= EXPIRING_SOON_DAYS;
    }
    case "rotation-due":
      return live && now.getTime() - time(facts.tokenCreatedAt) >= ROTATION_DUE_DAYS * DAY_MS;
    case "unused": {
      const since = now.getTime() - UNUSED_DAYS * DAY_MS;
      return (
        status !== "revoked" &&
        time(facts.createdAt) <= since &&
        (facts.lastUsedAt === null || time(facts.lastUsedAt) < since)
      );
    }
  }
}

/** `Needs attention`: how many integrations are in each kind (kinds with none are left out). */
export function needsAttention(all: readonly TriageFacts[], now: Date): { kind: AttentionKind; count: number }[] {
  return attentionKinds
    .map((kind) => ({ kind, count: all.filter((f) => inFilter(f, kind, now)).length }))
    .filter((line) => line.count > 0);
}

/**
 * `Search integrations`: every word of the query (case-insensitive) is in the name, the
 * description, a scope or the token's last four characters.
 */
export function matchesSearch(facts: TriageFacts, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const lastFour = facts.tokenHint.slice(-4).toLowerCase();
  const haystack = [facts.name, facts.description, ...facts.scopes].join("\n").toLowerCase();
  return words.every((w) => haystack.includes(w) || lastFour.includes(w));
}

/** What a row says needs doing, besides its one status (each is exactly its filter). */
export type RowSignal =
  | { kind: "revoked"; label: "Reported as leaked" }
  | { kind: "expiring-soon"; days: number; label: string }
  | { kind: "rotation-due"; label: "Rotation due" }
  | { kind: "unused"; label: "Unused" };

/** `Expires in N days` with N whole UTC days (`daysUntilExpiry`); the last day reads `Expires today`. */
export function expiresInWords(days: number): string {
  if (days === 0) return "Expires today";
  return `Expires in ${days} ${days === 1 ? "day" : "days"}`;
}

/** The row's signals, most urgent first; a row shows one only when it is in that kind's filter. */
export function rowSignals(facts: TriageFacts, now: Date): RowSignal[] {
  const signals: RowSignal[] = [];
  if (inFilter(facts, "revoked", now)) signals.push({ kind: "revoked", label: "Reported as leaked" });
  if (inFilter(facts, "expiring-soon", now)) {
    const days = daysUntilExpiry(facts.expiresAt, now) ?? 0;
    signals.push({ kind: "expiring-soon", days, label: expiresInWords(days) });
  }
  if (inFilter(facts, "rotation-due", now)) signals.push({ kind: "rotation-due", label: "Rotation due" });
  if (inFilter(facts, "unused", now)) signals.push({ kind: "unused", label: "Unused" });
  return signals;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** `Name`, ascending: A to Z, ignoring case and accents, `Sync 2` before `Sync 10`. */
export function compareNames(a: string, b: string): number {
  return collator.compare(a, b);
}

/** `Last used`, ascending: never used first (the longest unused), then the oldest use. */
export function compareLastUsed(a: TriageFacts["lastUsedAt"], b: TriageFacts["lastUsedAt"]): number {
  return (a === null ? -Infinity : time(a)) - (b === null ? -Infinity : time(b)) || 0;
}

/** `Expires`, ascending: the earliest (expired ones first), never last. */
export function compareExpires(a: TriageFacts["expiresAt"], b: TriageFacts["expiresAt"]): number {
  return (a === null ? Infinity : time(a)) - (b === null ? Infinity : time(b)) || 0;
}

/**
 * Urgency, the list's default order, most urgent first. The rank is the first `Needs attention`
 * kind a row is in (so both always agree), then:
 * 1. revoked (reported as leaked): every token is refused; by name;
 * 2. expired: nothing works; the most recently expired first (likely still called);
 * 3. expiring soon: the soonest first;
 * 4. rotation due: the oldest token first;
 * 5. unused: by name;
 * 6. the rest by name.
 * Ties within a rank go by name.
 */
export function urgencyRank(facts: TriageFacts, now: Date): number {
  const rank = attentionKinds.findIndex((kind) => inFilter(facts, kind, now));
  return rank === -1 ? attentionKinds.length : rank;
}

/** Sorts by urgency (a new array); each row's rank is worked out once. */
export function sortByUrgency<T>(rows: readonly T[], factsOf: (row: T) => TriageFacts, now: Date): T[] {
  const keyed = rows.map((row) => {
    const facts = factsOf(row);
    const rank = urgencyRank(facts, now);
    const kind = attentionKinds[rank];
    // Within the rank, the date that orders it (smaller first), or 0 where the name alone does.
    const expires = facts.expiresAt === null ? 0 : time(facts.expiresAt);
    const at =
      kind === "expired"
        ? -expires
        : kind === "expiring-soon"
          ? expires
          : kind === "rotation-due"
            ? time(facts.tokenCreatedAt)
            : 0;
    return { row, rank, at, name: facts.name };
  });
  keyed.sort((a, b) => a.rank - b.rank || a.at - b.at || compareNames(a.name, b.name));
  return keyed.map((k) => k.row);
}
