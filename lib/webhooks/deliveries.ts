import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import type { WebhookEventStatus } from "@/lib/generated/prisma/client";
import { forbidden, notFound } from "@/lib/refusal";
import { redeliverWebhookEvent } from "./redeliver";

/** The delivery log of an app, for its developer page: events, newest first, with their attempts. */

export interface WebhookAttemptView {
  id: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first 1 KiB of what the receiver answered; null when it did not answer. */
  responseBody: string | null;
}

export interface WebhookEventView {
  id: string;
  type: string;
  status: WebhookEventStatus;
  /** Attempts in the current retry series. */
  attempts: number;
  /** Every attempt ever made, redeliveries included. */
  totalAttempts: number;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  /** When the next attempt is due (pending events only). */
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  /** The payload as sent (no secrets: it is what the receiver gets). */
  body: string;
  /** The newest attempts first. */
  recentAttempts: WebhookAttemptView[];
}

export interface WebhookDeliveryLog {
  app: { id: string; name: string; webhookUrl: string | null };
  events: WebhookEventView[];
}

export async function listWebhookDeliveries(options: {
  appId: string;
  /** The app's own agency (from the session), never from the request. */
  companyId: string;
  limit?: number;
  attemptsPerEvent?: number;
}): Promise<WebhookDeliveryLog> {
  const app = await db().app.findFirst({
    where: { id: options.appId, companyId: options.companyId },
    select: { id: true, name: true, webhookUrl: true },
  });
  if (!app) throw notFound("That app does not exist.");
  const events = await db().webhookEvent.findMany({
    where: { appId: app.id },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: Math.min(options.limit ?? 50, 200),
    select: {
      id: true,
      type: true,
      status: true,
      attempts: true,
      lastAttemptAt: true,
      lastStatus: true,
      lastError: true,
      nextAttemptAt: true,
      deliveredAt: true,
      createdAt: true,
      payload: true,
      _count: { select: { deliveryLogs: true } },
      deliveryLogs: {
        orderBy: [{ attemptedAt: "desc" }, { id: "asc" }],
        take: options.attemptsPerEvent ?? 10,
        select: {
          id: true,
          attempt: true,
          attemptedAt: true,
          statusCode: true,
          error: true,
          durationMs: true,
          responseBody: true,
        },
      },
    },
  });
  return {
    app,
    events: events.map(({ _count, deliveryLogs, payload, ...event }) => ({
      ...event,
      nextAttemptAt: event.status === "pending" ? event.nextAttemptAt : null,
      totalAttempts: _count.deliveryLogs,
      body: JSON.stringify(payload),
      recentAttempts: deliveryLogs,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// The developer page (app/(admin)/developer/apps/[appId]/webhooks): the same log behind the rules
// of who may see it. The agency comes from the signed-in actor, never from the request.

export interface DeveloperApp {
  id: string;
  name: string;
  webhookUrl: string | null;
}

/** Whether the actor may open apps' developer pages (their own agency's apps only). */
export function canManageApps(actor: Actor): boolean {
  return isAgencyAdmin(actor.role);
}

/**
 * The app, when the actor is an owner or admin of the agency that made it. An app of another
 * agency and one that does not exist get the same answer, so ids of other agencies are not disclosed.
 */
export async function getAppForDeveloper(actor: Actor, appId: string): Promise<DeveloperApp> {
  if (!canManageApps(actor)) throw forbidden("Only the agency's owners and admins can manage its apps.");
  const app =
    appId.length > 0 && appId.length <= 100
      ? await db().app.findFirst({
          where: { id: appId, companyId: actor.companyId },
          select: { id: true, name: true, webhookUrl: true },
        })
      : null;
  if (!app) throw notFound("That app does not exist.");
  return app;
}

/** The delivery log of one of the actor's agency's apps. */
export async function developerWebhookLog(actor: Actor, appId: string): Promise<WebhookDeliveryLog> {
  const app = await getAppForDeveloper(actor, appId);
  return listWebhookDeliveries({ appId: app.id, companyId: actor.companyId });
}

/** The Redeliver button: the event must belong to this app of the actor's agency. */
export async function redeliverAsDeveloper(
  actor: Actor,
  input: { appId: string; eventId: string },
  now = new Date(),
): Promise<void> {
  const app = await getAppForDeveloper(actor, input.appId);
  const event =
    input.eventId.length <= 100
      ? await db().webhookEvent.findFirst({ where: { id: input.eventId, appId: app.id }, select: { id: true } })
      : null;
  if (!event) throw notFound("That webhook event does not exist.");
  await redeliverWebhookEvent(event.id, actor.companyId, now);
}
