import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { integrationManagers, sendReminderEmails } from "./check";
import { type Mailer, type ReminderEmail, smtpMailer } from "./mailer";

/**
 * Notices of events, as the reminders are notified (SPEC.md › Usage and reminders): a private
 * integration revoked as leaked (its managers), a refresh token's family revoked as leaked (the
 * owners and admins of the installation's agency, naming the app), a webhook endpoint disabled
 * (the owners and admins of the app's agency, naming the app). Each person gets one row per event:
 * the milestone names the event (the revocation's or the disabling's moment, or the grant), and the
 * insert skips rows that exist, so two instances noticing one event notify it once. The e-mails go
 * out at once, in the background (a revocation's answer never waits for SMTP); one that fails is
 * retried by the next reminder check for a day.
 */

export type NotificationEvent =
  | { kind: "integration_revoked"; integrationId: string; companyId: string; locationId: string | null; at: Date }
  | { kind: "refresh_token_revoked"; appId: string; grantId: string; companyId: string; at: Date }
  | { kind: "webhook_endpoint_disabled"; appId: string; at: Date };

const AGENCY_ADMINS = ["agency_owner", "agency_admin"] as const;

async function agencyAdmins(companyId: string): Promise<string[]> {
  const users = await db().user.findMany({
    where: { companyId, removedAt: null, role: { in: [...AGENCY_ADMINS] } },
    select: { id: true },
  });
  return users.map((u) => u.id);
}

async function recipients(event: NotificationEvent): Promise<string[]> {
  switch (event.kind) {
    case "integration_revoked":
      return (await integrationManagers(event)).map((actor: Actor) => actor.id);
    case "refresh_token_revoked":
      return agencyAdmins(event.companyId);
    case "webhook_endpoint_disabled": {
      const app = await db().app.findUnique({ where: { id: event.appId }, select: { companyId: true } });
      return app ? agencyAdmins(app.companyId) : [];
    }
  }
}

/** The dedupe key of an event within its integration or app. */
export function eventMilestone(event: NotificationEvent): string {
  switch (event.kind) {
    case "integration_revoked":
      return `revoked:${event.at.toISOString()}`;
    case "refresh_token_revoked":
      return `refresh-revoked:${event.grantId}`;
    case "webhook_endpoint_disabled":
      return `webhook-disabled:${event.at.toISOString()}`;
  }
}

/** Notifies the event's people once each; answers the ids of the rows it created. */
export async function notifyEvent(event: NotificationEvent, options: { mailer?: Mailer } = {}): Promise<string[]> {
  const userIds = await recipients(event);
  if (userIds.length === 0) return [];
  const integrationId = event.kind === "integration_revoked" ? event.integrationId : null;
  const appId = event.kind === "integration_revoked" ? null : event.appId;
  const milestone = eventMilestone(event);
  const dueDate = event.at.toISOString().slice(0, 10);
  // The conflict target is the key of the row's subject: (integration, …) or (app, …).
  const inserted = integrationId
    ? await db().$queryRaw<{ id: string }[]>`
        INSERT INTO "Notification" ("id", "userId", "integrationId", "kind", "milestone", "dueDate", "createdAt")
        SELECT gen_random_uuid()::text, u, ${integrationId}, ${event.kind}::"NotificationKind", ${milestone}, ${dueDate}, ${event.at}
        FROM unnest(${userIds}::text[]) AS u
        ON CONFLICT ("integrationId", "milestone", "userId") DO NOTHING
        RETURNING id`
    : await db().$queryRaw<{ id: string }[]>`
        INSERT INTO "Notification" ("id", "userId", "appId", "kind", "milestone", "dueDate", "createdAt")
        SELECT gen_random_uuid()::text, u, ${appId}, ${event.kind}::"NotificationKind", ${milestone}, ${dueDate}, ${event.at}
        FROM unnest(${userIds}::text[]) AS u
        ON CONFLICT ("appId", "milestone", "userId") DO NOTHING
        RETURNING id`;
  const ids = inserted.map((row) => row.id);
  if (ids.length === 0) return ids;
  log.info("event notified", { kind: event.kind, notifications: ids.length });
  const mailer = options.mailer ?? eventMailer();
  if (mailer) track(sendReminderEmails(mailer, event.at, ids));
  return ids;
}

/**
 * Like `notifyEvent`, but never throws (the event has happened; failing to tell someone must not
 * turn it into an error): a failure is logged.
 */
export async function notifyEventSafely(event: NotificationEvent, options: { mailer?: Mailer } = {}): Promise<void> {
  await notifyEvent(event, options).catch((error: unknown) => {
    log.error("notification of an event failed", { kind: event.kind, error: describeError(error) });
  });
}

const holder = globalThis as typeof globalThis & {
  __eventMailer?: { url: string; mailer: Mailer };
  __eventEmails?: Set<Promise<unknown>>;
};

/** One SMTP transport per process (per SMTP_URL); none without SMTP_URL. */
function eventMailer(): Mailer | undefined {
  const url = env().SMTP_URL;
  if (!url) return undefined;
  if (holder.__eventMailer?.url !== url) {
    const mailer = smtpMailer(url);
    if (!mailer) return undefined;
    holder.__eventMailer = { url, mailer };
  }
  return holder.__eventMailer.mailer;
}

function track(sending: Promise<unknown>): void {
  holder.__eventEmails ??= new Set();
  const pending = holder.__eventEmails;
  const settled = sending
    .catch((error: unknown) => log.error("event e-mails not sent", { error: describeError(error) }))
    .finally(() => pending.delete(settled));
  pending.add(settled);
}

/**
 * Sends one e-mail in the background (a security notice to a person): the change it reports has
 * happened and never waits for SMTP; a failure is logged. Nothing without SMTP_URL.
 */
export function mailInBackground(email: ReminderEmail, options: { mailer?: Mailer } = {}): void {
  const mailer = options.mailer ?? eventMailer();
  if (mailer) track(mailer(email));
}

/** Waits for the e-mails of events being sent (tests, and a server that stops). */
export async function eventEmailsSent(): Promise<void> {
  while (holder.__eventEmails?.size) await Promise.all([...holder.__eventEmails]);
}
