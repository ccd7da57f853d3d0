import Link from "next/link";

/**
 * `Notifications` in the header, with the number of unread reminders (read by the layout with
 * the rest of the shell, lib/accounts/shell.ts).
 */
export function NotificationsLink({ unread: count }: { unread: number }) {
  return (
    <Link
      href="/settings/notifications"
      className="inline-flex items-center gap-1.5 text-sm text-slate-700 hover:text-brand-700"
      aria-label={count > 0 ? `Notifications, ${count} unread` : "Notifications"}
    >
      Notifications
      {count > 0 ? (
        <span
          aria-hidden="true"
          className="min-w-5 rounded-full bg-accent px-1.5 text-center text-xs font-semibold leading-5 text-white"
        >
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
    </Link>
  );
}
