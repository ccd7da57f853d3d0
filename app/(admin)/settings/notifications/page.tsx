import type { Metadata } from "next";
import Link from "next/link";
import { MarkReadForm } from "@/components/notifications/mark-read-form";
import { PageHeader } from "@/components/page-header";
import { panelClass } from "@/components/ui/panel";
import { RelativeTime } from "@/components/ui/relative-time";
import { requireActor } from "@/lib/auth/session";
import { formatDay } from "@/lib/dates/format";
import { listNotifications, type NotificationView } from "@/lib/reminders/notifications";
import { markAllNotificationsRead } from "./actions";

export const metadata: Metadata = { title: "Notifications" };

const actions: Record<NotificationView["kind"], string> = {
  expiry: "Extend expiry",
  rotation_due: "Rotate and expire this token later",
  integration_revoked: "Rotate and expire this token now",
  refresh_token_revoked: "Installed apps",
  webhook_endpoint_disabled: "Webhooks",
  recovery_code_used: "Account",
};

/** What happened, in one sentence naming the integration or the app. */
function Message({ n }: { n: NotificationView }) {
  const where = n.locationName ? `sub-account ${n.locationName}` : "the agency";
  const name = <strong className="font-semibold">{n.integrationName ?? n.appName}</strong>;
  const date = <time dateTime={n.dueDate}>{formatDay(n.dueDate)}</time>;
  switch (n.kind) {
    case "expiry":
      return (
        <>
          {name} ({where}) expires on {date}.
        </>
      );
    case "rotation_due":
      return (
        <>
          The token of {name} ({where}) reached 90 days on {date}: its rotation is due.
        </>
      );
    case "integration_revoked":
      return (
        <>
          The token of {name} ({where}) was reported as leaked on {date}: the integration is Revoked until its token is
          rotated.
        </>
      );
    case "refresh_token_revoked":
      return (
        <>
          A refresh token of the app {name} was reported as leaked on {date}: its family was revoked, and the app needs
          to be authorised again.
        </>
      );
    case "recovery_code_used":
      return (
        <>
          One of your recovery codes was used to sign in on {date}. If that was not you, change your password and review
          your sign-in methods.
        </>
      );
    case "webhook_endpoint_disabled":
      return (
        <>
          The webhook endpoint of the app {name} was disabled on {date} after days of failures: no deliveries until it
          is enabled.
        </>
      );
  }
}

/** The signed-in person's reminders, newest first, each a link straight into the right dialog. */
export default async function NotificationsPage() {
  const actor = await requireActor();
  const notifications = await listNotifications(actor.id);
  const unread = notifications.filter((n) => !n.read).length;
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader
        title="Notifications"
        description="Reminders before a private integration you manage expires and when its token is due for rotation; tokens revoked as leaked; webhook endpoints disabled."
      />
      {notifications.length === 0 ? (
        <p className={`${panelClass} p-6 text-sm text-slate-600`}>
          No notifications yet. You will find reminders here 14, 7 and 1 days before an integration expires, and when
          its token is 90 days old; and notices when a token is revoked as leaked or an app's webhook endpoint is
          disabled.
        </p>
      ) : (
        <section aria-labelledby="notifications-title" className={panelClass}>
          <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-5 py-3">
            <h2 id="notifications-title" className="font-semibold">
              {unread === 0 ? "All read" : `${unread} unread`}
            </h2>
            {unread > 0 ? <MarkReadForm action={markAllNotificationsRead} label="Mark all as read" /> : null}
          </div>
          <ul className="divide-y divide-slate-200">
            {notifications.map((n) => {
              return (
                <li key={n.id} className="flex flex-wrap items-start justify-between gap-3 px-5 py-4">
                  <div className="min-w-0">
                    <p className="text-sm text-slate-900">
                      {n.read ? null : (
                        <span className="mr-2 rounded bg-brand-50 px-1.5 py-0.5 text-xs font-semibold text-brand-700">
                          New
                        </span>
                      )}
                      <Message n={n} />
                    </p>
                    <p className="mt-1 text-xs text-slate-500">
                      Notified <RelativeTime value={n.createdAt.toISOString()} now={now} />
                    </p>
                  </div>
                  <Link
                    href={n.href}
                    aria-label={`${actions[n.kind]}: ${n.integrationName ?? n.appName}`}
                    className="shrink-0 rounded-md px-3 py-1.5 text-sm font-medium text-brand-700 ring-1 ring-brand-600 hover:bg-brand-50"
                  >
                    {actions[n.kind]}
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
