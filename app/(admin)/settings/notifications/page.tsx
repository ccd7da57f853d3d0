import type { Metadata } from "next";
import Link from "next/link";
import { MarkReadForm } from "@/components/notifications/mark-read-form";
import { PageHeader } from "@/components/page-header";
import { requireActor } from "@/lib/auth/session";
import { listNotifications } from "@/lib/reminders/notifications";
import { markAllNotificationsRead } from "./actions";

export const metadata: Metadata = { title: "Notifications" };

const action = (kind: "expiry" | "rotation_due") =>
  kind === "expiry" ? "Extend expiry" : "Rotate and expire this token later";

/** The signed-in person's reminders, newest first, each a link straight into the right dialog. */
export default async function NotificationsPage() {
  const actor = await requireActor();
  const notifications = await listNotifications(actor.id);
  const unread = notifications.filter((n) => !n.read).length;
  return (
    <>
      <PageHeader
        title="Notifications"
        description="Reminders before a private integration you manage expires, and when its token is due for rotation."
      />
      {notifications.length === 0 ? (
        <p className="rounded-lg bg-surface p-6 text-sm text-slate-600 shadow-sm ring-1 ring-slate-200">
          No notifications yet. You will find reminders here 14, 7 and 1 days before an integration expires, and when
          its token is 90 days old.
        </p>
      ) : (
        <section
          aria-labelledby="notifications-title"
          className="rounded-lg bg-surface shadow-sm ring-1 ring-slate-200"
        >
          <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-5 py-3">
            <h2 id="notifications-title" className="font-semibold">
              {unread === 0 ? "All read" : `${unread} unread`}
            </h2>
            {unread > 0 ? <MarkReadForm action={markAllNotificationsRead} label="Mark all as read" /> : null}
          </div>
          <ul className="divide-y divide-slate-200">
            {notifications.map((n) => {
              const where = n.locationName ? `sub-account ${n.locationName}` : "the agency";
              return (
                <li key={n.id} className="flex flex-wrap items-start justify-between gap-3 px-5 py-4">
                  <div className="min-w-0">
                    <p className="text-sm text-slate-900">
                      {n.read ? null : (
                        <span className="mr-2 rounded bg-brand-50 px-1.5 py-0.5 text-xs font-semibold text-brand-700">
                          New
                        </span>
                      )}
                      {n.kind === "expiry" ? (
                        <>
                          <strong className="font-semibold">{n.integrationName}</strong> ({where}) expires on{" "}
                          <time dateTime={n.dueDate}>{n.dueDate}</time>.
                        </>
                      ) : (
                        <>
                          The token of <strong className="font-semibold">{n.integrationName}</strong> ({where}) reached
                          90 days on <time dateTime={n.dueDate}>{n.dueDate}</time>: its rotation is due.
                        </>
                      )}
                    </p>
                    <p className="mt-1 text-xs text-slate-500">
                      Notified{" "}
                      <time dateTime={n.createdAt.toISOString()}>{n.createdAt.toISOString().slice(0, 10)}</time>
                    </p>
                  </div>
                  <Link
                    href={n.href}
                    aria-label={`${action(n.kind)}: ${n.integrationName}`}
                    className="shrink-0 rounded-md px-3 py-1.5 text-sm font-medium text-brand-700 ring-1 ring-brand-600 hover:bg-brand-50"
                  >
                    {action(n.kind)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </>
  );
}
