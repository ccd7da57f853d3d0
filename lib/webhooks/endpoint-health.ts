import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { Prisma } from "@/lib/generated/prisma/client";
import { describeError, log } from "@/lib/log";
import { invalid, notFound } from "@/lib/refusal";
import { getAppForDeveloper } from "./deliveries";
import { nudgeDispatcher } from "./nudge";
import { queuedAgain } from "./redeliver";

/**
 * Webhook endpoint health (SPEC.md › Apps that grow without reinstalls, after Svix): the share of
 * attempts that succeeded in the last 24 hours; an endpoint that answered nothing but failures for
 * WEBHOOK_DISABLE_AFTER_DAYS is disabled (no more attempts; events are still written and listed by
 * GET /webhooks/events); `Enable` delivers everything pending at once; `Redeliver failed` queues
 * each event written since a chosen time whose delivery was given up, once.
 */

const DAY_MS = 86_400_000;

export interface FailureStreak {
  /** The newest successful attempt, if any. */
  lastSuccessAt: Date | null;
  /** The oldest failed attempt after it (or ever, without a success). */
  firstFailureSince: Date | null;
}

/** Whether an endpoint has answered nothing but failures for `days` days at `now`. */
export function failingLongEnough(streak: FailureStreak, now: Date, days: number): boolean {
  if (!streak.firstFailureSince) return false;
  return now.getTime() - streak.firstFailureSince.getTime() >= days * DAY_MS;
}

const okStatus = Prisma.sql`d."statusCode" BETWEEN 200 AND 299`;

async function failureStreak(appId: string): Promise<FailureStreak> {
  const rows = await db().$queryRaw<{ lastSuccessAt: Date | null; firstFailureSince: Date | null }[]>`
    WITH attempts AS (
      SELECT d."attemptedAt", d."statusCode" FROM "WebhookDelivery" d
      JOIN "WebhookEvent" e ON e.id = d."eventId"
      WHERE e."appId" = ${appId}
    ),
    success AS (SELECT max("attemptedAt") AS at FROM attempts d WHERE ${okStatus})
    SELECT (SELECT at FROM success) AS "lastSuccessAt",
           (SELECT min(d."attemptedAt") FROM attempts d
             WHERE NOT coalesce(${okStatus}, false)
               AND ((SELECT at FROM success) IS NULL OR d."attemptedAt" > (SELECT at FROM success))) AS "firstFailureSince"`;
  const row = rows[0];
  const date = (v: Date | string | null | undefined) => (v ? new Date(v) : null);
  return { lastSuccessAt: date(row?.lastSuccessAt), firstFailureSince: date(row?.firstFailureSince) };
}

/**
 * After a failed attempt: disables the app's endpoint when it has failed for long enough. Answers
 * true only to the one caller that disabled it (the conditional update), which tells the developers.
 */
export async function disableIfFailingTooLong(
  appId: string,
  now: Date,
  days = env().WEBHOOK_DISABLE_AFTER_DAYS,
): Promise<boolean> {
  if (!failingLongEnough(await failureStreak(appId), now, days)) return false;
  const { count } = await db().app.updateMany({
    where: { id: appId, webhookDisabledAt: null },
    data: { webhookDisabledAt: now },
  });
  if (count === 1) {
    log.warn("webhook endpoint disabled after failing for days", { appId, days });
    await tellEndpointDisabled({ appId, disabledAt: now });
  }
  return count === 1;
}

/**
 * Who hears that an endpoint was disabled: the app's developers, through the notifications of
 * lib/reminders, which come after webhooks in the import order; so instrumentation.ts registers
 * them here (`setEndpointDisabledNotifier`) when the server starts.
 */
export type EndpointDisabledNotifier = (notice: { appId: string; disabledAt: Date }) => Promise<void>;

const notifierHolder = globalThis as typeof globalThis & { __endpointDisabledNotifier?: EndpointDisabledNotifier };

/** Sets (or, with undefined, removes) the notifier of disabled endpoints. */
export function setEndpointDisabledNotifier(notifier: EndpointDisabledNotifier | undefined): void {
  notifierHolder.__endpointDisabledNotifier = notifier;
}

/** Never throws: the endpoint is disabled either way. */
async function tellEndpointDisabled(notice: { appId: string; disabledAt: Date }): Promise<void> {
  await notifierHolder.__endpointDisabledNotifier?.(notice).catch((error: unknown) => {
    log.error("notification of a disabled webhook endpoint failed", {
      appId: notice.appId,
      error: describeError(error),
    });
  });
}

export interface EndpointHealth {
  /** Attempts in the 24 hours before `now`. */
  attempts: number;
  succeeded: number;
  /** succeeded / attempts, or null without attempts. */
  successShare: number | null;
  disabledAt: Date | null;
}

export async function webhookEndpointHealth(appId: string, now = new Date()): Promise<EndpointHealth> {
  const since = new Date(now.getTime() - DAY_MS);
  const [rows, app] = await Promise.all([
    db().$queryRaw<{ attempts: bigint | number; succeeded: bigint | number }[]>`
      SELECT count(*) AS attempts, count(*) FILTER (WHERE ${okStatus}) AS succeeded
      FROM "WebhookDelivery" d JOIN "WebhookEvent" e ON e.id = d."eventId"
      WHERE e."appId" = ${appId} AND d."attemptedAt" > ${since} AND d."attemptedAt" <= ${now}`,
    db().app.findUnique({ where: { id: appId }, select: { webhookDisabledAt: true } }),
  ]);
  const attempts = Number(rows[0]?.attempts ?? 0);
  const succeeded = Number(rows[0]?.succeeded ?? 0);
  return {
    attempts,
    succeeded,
    successShare: attempts === 0 ? null : succeeded / attempts,
    disabledAt: app?.webhookDisabledAt ?? null,
  };
}

async function ownApp(appId: string, appCompanyId: string) {
  const app = await db().app.findFirst({
    where: { id: appId, companyId: appCompanyId },
    select: { id: true, webhookUrl: true },
  });
  if (!app) throw notFound("There is no such app in your agency.");
  if (!app.webhookUrl) throw invalid("This app has no webhook URL. Add one first.");
  return { id: app.id, webhookUrl: app.webhookUrl };
}

/**
 * `Enable`: attempts resume, and every pending event starts a new retry series now (its old one
 * ran out while the endpoint was off). Only for the app's own agency (`appCompanyId`).
 */
export async function enableWebhookEndpoint(appId: string, appCompanyId: string, now = new Date()): Promise<number> {
  const app = await ownApp(appId, appCompanyId);
  const [, pending] = await db().$transaction([
    db().app.update({ where: { id: app.id }, data: { webhookDisabledAt: null } }),
    db().webhookEvent.updateMany({
      where: { appId: app.id, status: "pending" },
      data: {
        attempts: 0,
        nextAttemptAt: now,
        retryStartedAt: now,
        lockedUntil: null,
        claimToken: null,
        targetUrl: app.webhookUrl,
      },
    }),
  ]);
  log.info("webhook endpoint enabled", { appId: app.id, pending: pending.count });
  nudgeDispatcher();
  return pending.count;
}

/**
 * `Redeliver failed`: every event written since `since` whose delivery was given up is queued once
 * more, as a new retry series (one statement: each event once, and a second press finds them pending).
 */
export async function redeliverFailedSince(
  appId: string,
  appCompanyId: string,
  since: Date,
  now = new Date(),
): Promise<number> {
  const app = await ownApp(appId, appCompanyId);
  const { count } = await db().webhookEvent.updateMany({
    where: { appId: app.id, status: "failed", createdAt: { gte: since } },
    data: queuedAgain(now, app.webhookUrl),
  });
  log.info("failed webhooks redelivered", { appId: app.id, since: since.toISOString(), count });
  if (count > 0) nudgeDispatcher();
  return count;
}

/** The app's webhooks page: health of one of the actor's agency's apps. */
export async function endpointHealthForDeveloper(
  actor: Actor,
  appId: string,
  now = new Date(),
): Promise<EndpointHealth> {
  const app = await getAppForDeveloper(actor, appId);
  return webhookEndpointHealth(app.id, now);
}

/** The `Enable` button. */
export async function enableAsDeveloper(actor: Actor, appId: string, now = new Date()): Promise<number> {
  const app = await getAppForDeveloper(actor, appId);
  return enableWebhookEndpoint(app.id, actor.companyId, now);
}

/** The `Redeliver failed` button. */
export async function redeliverFailedAsDeveloper(
  actor: Actor,
  appId: string,
  since: Date,
  now = new Date(),
): Promise<number> {
  const app = await getAppForDeveloper(actor, appId);
  return redeliverFailedSince(app.id, actor.companyId, since, now);
}
