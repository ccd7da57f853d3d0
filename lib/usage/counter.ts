import { db } from "@/lib/db/client";
import { describeError, log } from "@/lib/log";

/**
 * API requests per caller, UTC hour and outcome (SPEC.md › Usage and reminders), counted off the
 * request's path: a request only updates a Map in this process (`count`), and at most once a second
 * (and at shutdown) one statement ADDS the gathered counts to the rows, so instances sharing the
 * database sum exactly. A failed flush puts its counts back, to be added by the next one: nothing is
 * lost but what a killed process had not yet flushed (at most the last second). Never throws into a
 * request.
 */

/** `ok` 2xx, `refused` 4xx other than 429, `limited` 429. */
export type Outcome = "ok" | "refused" | "limited";

/** Whose request it was: a private integration or an app installation. */
export interface UsageSubject {
  type: "integration" | "installation";
  id: string;
}

/** A refused request of an integration, as its details show the last one. */
export interface Refusal {
  at: Date;
  address: string;
  /** `METHOD /path`. */
  endpoint: string;
  errorCode: string;
  description: string;
}

/** The outcome an answer's status counts as; other statuses (1xx, 3xx, 5xx) are not counted. */
export function outcomeOf(status: number): Outcome | undefined {
  if (status === 429) return "limited";
  if (status >= 200 && status < 300) return "ok";
  if (status >= 400 && status < 500) return "refused";
  return undefined;
}

const HOUR_MS = 3_600_000;

/** Runs one parameterized statement (another instance's client in tests). */
export type UsageQuery = (text: string, values: readonly unknown[]) => Promise<unknown>;

export const prismaUsageQuery: UsageQuery = (text, values) => db().$executeRawUnsafe(text, ...values);

interface HourCount {
  type: UsageSubject["type"];
  id: string;
  /** Hours since 1970-01-01T00:00Z. */
  hour: number;
  ok: number;
  refused: number;
  limited: number;
}

/** Adds a batch of hour counts and last refusals in one statement (both or neither). */
export const FLUSH_STATEMENT = `WITH counts AS (
  INSERT INTO "ApiUsageHour" ("subjectType", "subjectId", "hour", "ok", "refused", "limited")
  SELECT u.t::"UsageSubject", u.s, u.h::timestamptz AT TIME ZONE 'UTC', u.o, u.r, u.l
  FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[]) AS u(t, s, h, o, r, l)
  ON CONFLICT ("subjectType", "subjectId", "hour") DO UPDATE SET
    "ok" = "ApiUsageHour"."ok" + EXCLUDED."ok",
    "refused" = "ApiUsageHour"."refused" + EXCLUDED."refused",
    "limited" = "ApiUsageHour"."limited" + EXCLUDED."limited"
  RETURNING 1
), refusals AS (
  INSERT INTO "IntegrationLastRefusal" ("integrationId", "at", "address", "endpoint", "errorCode", "description")
  SELECT f.i, f.a::timestamptz AT TIME ZONE 'UTC', f.p, f.e, f.c, f.x
  FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[]) AS f(i, a, p, e, c, x)
  ON CONFLICT ("integrationId") DO UPDATE SET
    "at" = EXCLUDED."at", "address" = EXCLUDED."address", "endpoint" = EXCLUDED."endpoint",
    "errorCode" = EXCLUDED."errorCode", "description" = EXCLUDED."description"
  WHERE EXCLUDED."at" >= "IntegrationLastRefusal"."at"
  RETURNING 1
)
SELECT (SELECT count(*) FROM counts) + (SELECT count(*) FROM refusals)`;

export class UsageCounter {
  private counts = new Map<string, HourCount>();
  /** The entry counted last, while it is in `counts` (a flush hands `counts` over and forgets it). */
  private last: HourCount | undefined;
  private refusals = new Map<string, Refusal>();
  private flushing: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly query: UsageQuery = prismaUsageQuery,
    private readonly intervalMs = 1_000,
  ) {}

  /** The hot path: one Map update (and one more for a refusal). */
  count(subject: UsageSubject, outcome: Outcome, now: Date, refusal?: Omit<Refusal, "at">): void {
    const hour = Math.floor(now.getTime() / HOUR_MS);
    const last = this.last;
    // A busy caller's requests follow one another: its entry is found without building its key.
    let entry =
      last !== undefined && last.hour === hour && last.id === subject.id && last.type === subject.type
        ? last
        : undefined;
    if (!entry) {
      const key = `${subject.type}|${subject.id}|${hour}`;
      entry = this.counts.get(key);
      if (!entry) {
        entry = { type: subject.type, id: subject.id, hour, ok: 0, refused: 0, limited: 0 };
        this.counts.set(key, entry);
      }
      this.last = entry;
    }
    entry[outcome]++;
    if (refusal && subject.type === "integration") {
      const last = this.refusals.get(subject.id);
      if (!last || last.at.getTime() <= now.getTime()) this.refusals.set(subject.id, { ...refusal, at: now });
    }
    if (!this.timer) this.start();
  }

  /** Whether counts wait to be flushed. */
  get pending(): boolean {
    return this.counts.size > 0 || this.refusals.size > 0;
  }

  /**
   * Adds what was counted so far to the database; on failure logs and keeps it for the next flush.
   * Resolves either way; `true` when everything gathered up to the call was written.
   */
  async flush(): Promise<boolean> {
    while (this.flushing) await this.flushing;
    if (!this.pending) return true;
    const counts = this.counts;
    const refusals = this.refusals;
    this.counts = new Map();
    this.last = undefined;
    this.refusals = new Map();
    let ok = true;
    this.flushing = this.write(counts, refusals).catch((error: unknown) => {
      ok = false;
      log.error("API usage counts not written; kept for the next try", { error: describeError(error) });
      this.restore(counts, refusals);
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
    return ok;
  }

  /** Flushes every `intervalMs` from the first count on; the timer keeps no process alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Stops the timer and flushes what is left (shutdown). */
  async stop(): Promise<boolean> {
    clearInterval(this.timer);
    this.timer = undefined;
    return this.flush();
  }

  private async write(counts: Map<string, HourCount>, refusals: Map<string, Refusal>): Promise<void> {
    const c = [...counts.values()];
    const r = [...refusals.entries()];
    await this.query(FLUSH_STATEMENT, [
      c.map((x) => x.type),
      c.map((x) => x.id),
      c.map((x) => new Date(x.hour * HOUR_MS).toISOString()),
      c.map((x) => x.ok),
      c.map((x) => x.refused),
      c.map((x) => x.limited),
      r.map(([id]) => id),
      r.map(([, x]) => x.at.toISOString()),
      r.map(([, x]) => x.address),
      r.map(([, x]) => x.endpoint),
      r.map(([, x]) => x.errorCode),
      r.map(([, x]) => x.description),
    ]);
  }

  /** Puts a failed batch back under what was counted meanwhile. */
  private restore(counts: Map<string, HourCount>, refusals: Map<string, Refusal>): void {
    for (const [key, old] of counts) {
      const now = this.counts.get(key);
      if (!now) this.counts.set(key, old);
      else {
        now.ok += old.ok;
        now.refused += old.refused;
        now.limited += old.limited;
      }
    }
    for (const [id, old] of refusals) {
      const now = this.refusals.get(id);
      if (!now || now.at.getTime() < old.at.getTime()) this.refusals.set(id, old);
    }
  }
}

const holder = globalThis as typeof globalThis & { __usageCounter?: UsageCounter };

/** This process's counter. */
export function usageCounter(): UsageCounter {
  holder.__usageCounter ??= new UsageCounter();
  return holder.__usageCounter;
}

/** For tests: use `counter` (or a fresh default one) from now on. */
export function resetUsageCounter(counter?: UsageCounter): void {
  holder.__usageCounter = counter;
}
