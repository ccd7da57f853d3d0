import { db } from "@/lib/db/client";
import { reminderPath } from "./check";

/** A person's reminders, as `/settings/notifications` lists them (newest first). */
export interface NotificationView {
  id: string;
  kind: "expiry" | "rotation_due";
  dueDate: string;
  createdAt: Date;
  read: boolean;
  integrationName: string;
  /** The sub-account's name; null for an agency integration. */
  locationName: string | null;
  /** Straight into the integration's `Extend expiry` or `Rotate and expire this token later` dialog. */
  href: string;
}

/** The person's notifications; their own only (scoped by the signed-in person's id). */
export async function listNotifications(userId: string, limit = 100): Promise<NotificationView[]> {
  const rows = await db().notification.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: limit,
    select: {
      id: true,
      kind: true,
      dueDate: true,
      createdAt: true,
      readAt: true,
      integration: { select: { id: true, name: true, locationId: true, location: { select: { name: true } } } },
    },
  });
  return rows.map((n) => ({
    id: n.id,
    kind: n.kind,
    dueDate: n.dueDate,
    createdAt: n.createdAt,
    read: n.readAt !== null,
    integrationName: n.integration.name,
    locationName: n.integration.location?.name ?? null,
    href: reminderPath(n.integration, n.kind),
  }));
}

export async function unreadNotificationCount(userId: string): Promise<number> {
  return db().notification.count({ where: { userId, readAt: null } });
}

/** Marks the person's notifications read (all of them, or the one given). */
export async function markNotificationsRead(userId: string, now: Date, notificationId?: string): Promise<number> {
  const { count } = await db().notification.updateMany({
    where: { userId, readAt: null, ...(notificationId ? { id: notificationId } : {}) },
    data: { readAt: now },
  });
  return count;
}

/** `Email me about my tokens` on /settings/account. */
export async function setTokenEmails(userId: string, enabled: boolean): Promise<void> {
  await db().user.update({ where: { id: userId }, data: { tokenEmails: enabled } });
}

export async function tokenEmailsEnabled(userId: string): Promise<boolean> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { tokenEmails: true } });
  return user?.tokenEmails ?? false;
}
