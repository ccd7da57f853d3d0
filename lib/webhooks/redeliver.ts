import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { invalid, notFound } from "@/lib/refusal";
import { nudgeDispatcher } from "./nudge";

/**
 * An event back in the queue from `now` as a new retry series to `targetUrl` (Redeliver, one event
 * or all failed ones): no attempts counted, no claim, not delivered.
 */
export function queuedAgain(now: Date, targetUrl: string): Prisma.WebhookEventUpdateManyMutationInput {
  return {
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    retryStartedAt: now,
    lockedUntil: null,
    claimToken: null,
    deliveredAt: null,
    targetUrl,
  };
}

/**
 * Puts a delivered or failed event (or a pending one) back in the queue now, as a new retry
 * series with the app's current webhook URL. Only for the app's own agency (`appCompanyId`).
 */
export async function redeliverWebhookEvent(eventId: string, appCompanyId: string, now = new Date()): Promise<void> {
  const event = await db().webhookEvent.findFirst({
    where: { id: eventId, app: { companyId: appCompanyId } },
    select: { id: true, appId: true, app: { select: { webhookUrl: true } } },
  });
  if (!event) throw notFound("That webhook event does not exist.");
  if (!event.app.webhookUrl) throw invalid("This app has no webhook URL. Add one before redelivering.");
  await db().webhookEvent.update({
    where: { id: event.id },
    data: queuedAgain(now, event.app.webhookUrl),
  });
  log.info("webhook redelivery requested", { eventId: event.id, appId: event.appId });
  nudgeDispatcher();
}
