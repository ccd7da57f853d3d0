import type { Tx } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { nudgeDispatcher } from "./nudge";

export interface OutboxEvent {
  appId: string;
  /** INSTALL, UNINSTALL, … */
  type: string;
  targetUrl: string;
  /** The body without `webhookId`; it is added from the row id so both always agree. */
  payload: Prisma.InputJsonObject;
}

/**
 * Writes app events to the durable outbox inside the caller's transaction, so an event exists
 * exactly when the change it reports was committed. The dispatcher delivers it at least once.
 */
export async function enqueueWebhookEvents(tx: Tx, events: OutboxEvent[], now = new Date()): Promise<string[]> {
  const ids: string[] = [];
  for (const event of events) {
    const id = crypto.randomUUID();
    await tx.webhookEvent.create({
      data: {
        id,
        appId: event.appId,
        type: event.type,
        targetUrl: event.targetUrl,
        payload: { ...event.payload, webhookId: id },
        nextAttemptAt: now,
        retryStartedAt: now,
        createdAt: now,
      },
    });
    ids.push(id);
  }
  // Wake this instance's dispatcher shortly after the caller's transaction has (likely) committed;
  // if it has not yet, the next poll (every second) finds the rows.
  if (ids.length > 0) nudgeDispatcher(100);
  return ids;
}
