import { db } from "@/lib/db/client";
import type { NotificationKind } from "@/lib/generated/prisma/client";
import { appNoticePath, reminderPath } from "./check";

/** A person's notifications, as `/settings/notifications` lists them (newest first). */
export interface NotificationView {
  id: string;
  kind: NotificationKind;
  /** The milestone's date, or the day of the event. */
  dueDate: string;
  createdAt: Date;
  read: boolean;
  /** The integration's name (reminders, a revoked integration); null for a notice about an app. */
  integrationName: string | null;
  /** The sub-account's name; null for an agency integration or an app. */
  locationName: string | null;
  /** The app's name (a revoked refresh token, a disabled webhook endpoint); null otherwise. */
  appName: string | null;
  /**
   * Straight into the integration's `Extend expiry`, `Rotate and expire this token later` or
   * `Rotate and expire this token now` dialog, or to the app's webhooks page.
   */
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
      app: { select: { id: true, name: true } },
    },
  });
  return rows.flatMap((n): NotificationView[] => {
    const common = { id: n.id, kind: n.kind, dueDate: n.dueDate, createdAt: n.createdAt, read: n.readAt !== null };
    if (n.kind === "recovery_code_used") {
      return [{ ...common, integrationName: null, locationName: null, appName: null, href: "/settings/account" }];
    }
    if (n.kind === "refresh_token_revoked" || n.kind === "webhook_endpoint_disabled") {
      if (!n.app) return [];
      const href = appNoticePath(n.app.id, n.kind);
      return [{ ...common, integrationName: null, locationName: null, appName: n.app.name, href }];
    }
    if (!n.integration) return [];
    return [
      {
        ...common,
        integrationName: n.integration.name,
        locationName: n.integration.location?.name ?? null,
        appName: null,
        href: reminderPath(n.integration, n.kind),
      },
    ];
  });
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
