import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import type { WebhookEventStatus } from "@/lib/generated/prisma/client";

/** The delivery log of an app, for its developer page: events, newest first, with their attempts. */

export interface WebhookAttemptView {
  id: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
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
        select: { id: true, attempt: true, attemptedAt: true, statusCode: true, error: true, durationMs: true },
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
