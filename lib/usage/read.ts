import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Refusal } from "./counter";

/**
 * What the screens and the management API read of the counts (lib/usage/counter.ts writes them).
 * Callers have already decided that the person or token may see the integration or app: these
 * functions take ids only. Days are UTC days, the newest last; windows of hours end with the hour
 * now is in, so "24 hours" is the current hour and the 23 before it.
 */

export interface UsageDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  ok: number;
  refused: number;
  limited: number;
}

export interface UsageTotals {
  ok: number;
  refused: number;
  limited: number;
  /** All three together. */
  total: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Counts are kept this long (the pruner deletes older hours). */
export const USAGE_RETENTION_DAYS = 90;

/** The start of the hour `hours - 1` hours before the one `now` is in. */
function hoursBack(now: Date, hours: number): Date {
  return new Date((Math.floor(now.getTime() / HOUR_MS) - (hours - 1)) * HOUR_MS);
}

function daysWindow(now: Date, days: number): { from: Date; dates: string[] } {
  const today = Math.floor(now.getTime() / DAY_MS);
  const dates = Array.from({ length: days }, (_, i) =>
    new Date((today - days + 1 + i) * DAY_MS).toISOString().slice(0, 10),
  );
  return { from: new Date((today - days + 1) * DAY_MS), dates };
}

interface DayRow {
  date: string;
  ok: number;
  refused: number;
  limited: number;
}

function fillDays(dates: string[], rows: DayRow[]): UsageDay[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return dates.map((date) => {
    const row = byDate.get(date);
    return { date, ok: Number(row?.ok ?? 0), refused: Number(row?.refused ?? 0), limited: Number(row?.limited ?? 0) };
  });
}

function checkDays(days: number): void {
  if (!Number.isInteger(days) || days < 1 || days > USAGE_RETENTION_DAYS) {
    throw new RangeError(`days must be a whole number from 1 to ${USAGE_RETENTION_DAYS}`);
  }
}

const perDay = Prisma.sql`to_char(date_trunc('day', u."hour"), 'YYYY-MM-DD') AS date,
  sum(u."ok")::int AS ok, sum(u."refused")::int AS refused, sum(u."limited")::int AS limited`;

/** One integration's requests per day, for the last `days` days (today last), zeros included. */
export async function integrationUsageDays(integrationId: string, days: number, now: Date): Promise<UsageDay[]> {
  checkDays(days);
  const { from, dates } = daysWindow(now, days);
  const rows = await db().$queryRaw<DayRow[]>`
    SELECT ${perDay} FROM "ApiUsageHour" u
    WHERE u."subjectType" = 'integration' AND u."subjectId" = ${integrationId} AND u."hour" >= ${from}
    GROUP BY 1`;
  return fillDays(dates, rows);
}

/** The requests of every installation of an app together, per day, for the last `days` days. */
export async function appUsageDays(appId: string, days: number, now: Date): Promise<UsageDay[]> {
  checkDays(days);
  const { from, dates } = daysWindow(now, days);
  const rows = await db().$queryRaw<DayRow[]>`
    SELECT ${perDay} FROM "ApiUsageHour" u
    JOIN "Installation" i ON i."id" = u."subjectId"
    WHERE u."subjectType" = 'installation' AND i."appId" = ${appId} AND u."hour" >= ${from}
    GROUP BY 1`;
  return fillDays(dates, rows);
}

interface TotalsRow {
  ok: number | null;
  refused: number | null;
  limited: number | null;
}

function totals(row: TotalsRow | undefined): UsageTotals {
  const ok = Number(row?.ok ?? 0);
  const refused = Number(row?.refused ?? 0);
  const limited = Number(row?.limited ?? 0);
  return { ok, refused, limited, total: ok + refused + limited };
}

/** One integration's totals for the last 24 hours and the last 7 days (168 hours). */
export async function integrationUsageTotals(
  integrationId: string,
  now: Date,
): Promise<{ last24Hours: UsageTotals; last7Days: UsageTotals }> {
  const dayStart = hoursBack(now, 24);
  const weekStart = hoursBack(now, 168);
  const rows = await db().$queryRaw<(TotalsRow & { span: string })[]>`
    SELECT w.span, sum(u."ok")::int AS ok, sum(u."refused")::int AS refused, sum(u."limited")::int AS limited
    FROM "ApiUsageHour" u
    CROSS JOIN LATERAL (VALUES ('week'), ('day')) AS w(span)
    WHERE u."subjectType" = 'integration' AND u."subjectId" = ${integrationId} AND u."hour" >= ${weekStart}
      AND (w.span = 'week' OR u."hour" >= ${dayStart})
    GROUP BY w.span`;
  return {
    last24Hours: totals(rows.find((r) => r.span === "day")),
    last7Days: totals(rows.find((r) => r.span === "week")),
  };
}

/**
 * `Requests (7 days)` of every integration of one owner (an agency's own, or one sub-account's), by
 * integration id: every outcome, the last 168 hours, asked by owner so the screen reads them
 * beside its list rather than after it. Integrations without requests are absent.
 */
export async function ownerRequestsLast7Days(
  owner: { companyId: string; locationId: string | null },
  now: Date,
): Promise<Map<string, number>> {
  const rows = await db().$queryRaw<{ id: string; total: number }[]>`
    SELECT u."subjectId" AS id, sum(u."ok" + u."refused" + u."limited")::int AS total
    FROM "PrivateIntegration" pi
    JOIN "ApiUsageHour" u ON u."subjectType" = 'integration' AND u."subjectId" = pi.id AND u."hour" >= ${hoursBack(now, 168)}
    WHERE pi."companyId" = ${owner.companyId} AND pi."locationId" IS NOT DISTINCT FROM ${owner.locationId}
    GROUP BY u."subjectId"`;
  return new Map(rows.map((row) => [row.id, Number(row.total)]));
}

/** The integration's last refused request (4xx other than 429) in the last 90 days, if any. */
export async function lastRefusedRequest(integrationId: string): Promise<Refusal | undefined> {
  const row = await db().integrationLastRefusal.findUnique({ where: { integrationId } });
  if (!row) return undefined;
  return {
    at: row.at,
    address: row.address,
    endpoint: row.endpoint,
    errorCode: row.errorCode,
    description: row.description,
  };
}
