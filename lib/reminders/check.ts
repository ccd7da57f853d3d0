// Over 250 lines on purpose: one reminder check, in the order it runs: due milestones, who manages
// each, the e-mails, and the links they carry.
import { type Actor, canManageAgencyIntegrations, canManageLocationIntegrations } from "@/lib/accounts/permissions";
import type { Role } from "@/lib/accounts/roles";
import { actorSelect, toActor } from "@/lib/accounts/users";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { type NotificationKind, Prisma } from "@/lib/generated/prisma/client";
import { describeError, log } from "@/lib/log";
import type { Mailer, ReminderEmail } from "./mailer";
import { type DueMilestone, dueMilestones, ROTATION_DUE_DAYS } from "./milestones";

/**
 * One reminder check (SPEC.md › Usage and reminders): every live integration with a milestone due
 * at `now` (lib/reminders/milestones.ts) gets one Notification per owner and admin allowed to manage
 * it. The insert skips rows that exist (unique integration, milestone, person), so instances that
 * check at once, or a check after downtime, notify each milestone once. Then the e-mails: each
 * notification is claimed (`emailedAt`) before it is sent and released when sending fails, so one
 * instance sends it, and a failure is retried by the next check for a day.
 */

const DAY_MS = 86_400_000;
/** Expiry milestones are at most 14 days ahead; a day more covers time zones of the clock. */
const EXPIRY_HORIZON_MS = 15 * DAY_MS;
const MANAGING_ROLES: Role[] = ["agency_owner", "agency_admin", "account_admin"];

export interface ReminderCheckResult {
  notified: number;
  emailed: number;
  emailFailures: number;
}

interface Candidate {
  id: string;
  name: string;
  companyId: string;
  locationId: string | null;
  expiresAt: Date | null;
  tokenId: string;
  tokenIssuedAt: Date;
}

export async function checkReminders(options: { now?: Date; mailer?: Mailer } = {}): Promise<ReminderCheckResult> {
  const now = options.now ?? new Date();
  const notified = await notifyDueMilestones(now);
  const { emailed, failures } = options.mailer
    ? await sendReminderEmails(options.mailer, now)
    : { emailed: 0, failures: 0 };
  return { notified, emailed, emailFailures: failures };
}

async function notifyDueMilestones(now: Date): Promise<number> {
  const candidates = await db().$queryRaw<Candidate[]>`
    SELECT i.id, i.name, i."companyId", i."locationId", i."expiresAt", t.id AS "tokenId", t."createdAt" AS "tokenIssuedAt"
    FROM "PrivateIntegration" i
    JOIN "PrivateIntegrationToken" t ON t."integrationId" = i.id AND t.slot = 'current' AND t."revokedAt" IS NULL
    WHERE (i."expiresAt" IS NULL OR i."expiresAt" > ${now})
      AND ((i."expiresAt" IS NOT NULL AND i."expiresAt" <= ${new Date(now.getTime() + EXPIRY_HORIZON_MS)})
        OR t."createdAt" <= ${new Date(now.getTime() - ROTATION_DUE_DAYS * DAY_MS)})`;
  const due = candidates.flatMap((c) =>
    dueMilestones({ expiresAt: c.expiresAt, currentTokenId: c.tokenId, tokenIssuedAt: c.tokenIssuedAt }, now).map(
      (m) => ({ integration: c, milestone: m }),
    ),
  );
  if (due.length === 0) return 0;
  const recipients = await managers([...new Set(due.map((d) => d.integration.companyId))]);
  const rows: { userId: string; integrationId: string; milestone: DueMilestone }[] = [];
  for (const { integration, milestone } of due) {
    for (const actor of recipients.get(integration.companyId) ?? []) {
      if (mayManage(actor, integration)) rows.push({ userId: actor.id, integrationId: integration.id, milestone });
    }
  }
  if (rows.length === 0) return 0;
  const inserted = await db().$executeRaw`
    INSERT INTO "Notification" ("id", "userId", "integrationId", "kind", "milestone", "dueDate", "createdAt")
    SELECT gen_random_uuid()::text, r.u, r.i, r.k::"NotificationKind", r.m, r.d, ${now}
    FROM unnest(${rows.map((r) => r.userId)}::text[], ${rows.map((r) => r.integrationId)}::text[],
      ${rows.map((r) => r.milestone.kind)}::text[], ${rows.map((r) => r.milestone.milestone)}::text[],
      ${rows.map((r) => r.milestone.dueDate)}::text[]) AS r(u, i, k, m, d)
    ON CONFLICT ("integrationId", "milestone", "userId") DO NOTHING`;
  if (inserted > 0) log.info("reminders notified", { notifications: inserted });
  return inserted;
}

function mayManage(actor: Actor, integration: { companyId: string; locationId: string | null }): boolean {
  return integration.locationId
    ? canManageLocationIntegrations(actor, { id: integration.locationId, companyId: integration.companyId })
    : canManageAgencyIntegrations(actor, integration.companyId);
}

/** The owners and admins allowed to manage the integration: who its reminders and notices go to. */
export async function integrationManagers(integration: {
  companyId: string;
  locationId: string | null;
}): Promise<Actor[]> {
  const byCompany = await managers([integration.companyId]);
  return (byCompany.get(integration.companyId) ?? []).filter((actor) => mayManage(actor, integration));
}

/** Owners and admins (agency, or sub-account admins) of the companies, as the permission rules see them. */
async function managers(companyIds: string[]): Promise<Map<string, Actor[]>> {
  const users = await db().user.findMany({
    where: { companyId: { in: companyIds }, removedAt: null, role: { in: MANAGING_ROLES } },
    select: actorSelect,
  });
  const byCompany = new Map<string, Actor[]>();
  for (const user of users) {
    const list = byCompany.get(user.companyId) ?? [];
    list.push(toActor(user));
    byCompany.set(user.companyId, list);
  }
  return byCompany;
}

interface PendingEmail {
  id: string;
  kind: NotificationKind;
  dueDate: string;
  email: string;
  integrationId: string | null;
  integrationName: string | null;
  locationId: string | null;
  locationName: string | null;
  appId: string | null;
  appName: string | null;
  companyName: string;
}

/**
 * Sends the e-mails of unsent notifications of the last day (only `ids`, when given) to the people
 * who keep `Email me about my tokens` on. Each is claimed in one statement, so of instances sending
 * at once each notification goes to one; a failure releases it for the next check.
 */
export async function sendReminderEmails(
  mailer: Mailer,
  now: Date,
  ids?: readonly string[],
): Promise<{ emailed: number; failures: number }> {
  const only = ids ? Prisma.sql`AND n.id = ANY(${[...ids]}::text[])` : Prisma.empty;
  const claimed = await db().$queryRaw<PendingEmail[]>`
    WITH claim AS (
      UPDATE "Notification" n SET "emailedAt" = ${now}
      FROM "User" u
      WHERE u.id = n."userId" AND n."emailedAt" IS NULL AND n."readAt" IS NULL ${only}
        AND n."createdAt" >= ${new Date(now.getTime() - DAY_MS)} AND u."tokenEmails" AND u."removedAt" IS NULL
      RETURNING n.id, n.kind::text AS kind, n."dueDate", u.email, u."companyId", n."integrationId", n."appId"
    )
    SELECT claim.id, claim.kind, claim."dueDate", claim.email, claim."integrationId", claim."appId",
      i.name AS "integrationName", i."locationId", l.name AS "locationName", a.name AS "appName",
      c.name AS "companyName"
    FROM claim
    JOIN "Company" c ON c.id = claim."companyId"
    LEFT JOIN "PrivateIntegration" i ON i.id = claim."integrationId"
    LEFT JOIN "Location" l ON l.id = i."locationId"
    LEFT JOIN "App" a ON a.id = claim."appId"`;
  let emailed = 0;
  let failures = 0;
  for (const pending of claimed) {
    try {
      await mailer(reminderEmail(pending, now));
      emailed++;
    } catch (error) {
      failures++;
      log.warn("reminder e-mail not sent; retried at the next check", {
        notification: pending.id,
        error: describeError(error),
      });
      await db()
        .notification.updateMany({ where: { id: pending.id, emailedAt: now }, data: { emailedAt: null } })
        .catch(() => {});
    }
  }
  return { emailed, failures };
}

/** Where a notification leads: the integration's screen with the dialog to open, or the app's page. */
export function reminderPath(
  integration: { id: string; locationId: string | null },
  kind: "expiry" | "rotation_due" | "integration_revoked",
): string {
  const base = integration.locationId
    ? `/location/${integration.locationId}/settings/private-integrations`
    : "/settings/private-integrations";
  const action = kind === "expiry" ? "extend" : kind === "rotation_due" ? "rotate-later" : "rotate-now";
  return `${base}?integration=${encodeURIComponent(integration.id)}&action=${action}`;
}

/** Where a notice about an app leads: its webhooks page, or the installed apps (Marketplace). */
export function appNoticePath(appId: string, kind: "refresh_token_revoked" | "webhook_endpoint_disabled"): string {
  return kind === "webhook_endpoint_disabled"
    ? `/developer/apps/${encodeURIComponent(appId)}/webhooks`
    : "/marketplace";
}

const WHY_INTEGRATION =
  "You get this because you manage this integration. Turn these e-mails off under Settings › Account (Email me about my tokens).";
const WHY_APP =
  "You get this because you are an owner or admin of the agency. Turn these e-mails off under Settings › Account (Email me about my tokens).";

/** The e-mail of one notification: what happened, to which integration or app, the date, the link; never a token. */
export function reminderEmail(n: PendingEmail, now: Date): ReminderEmail {
  if (n.kind === "refresh_token_revoked" || n.kind === "webhook_endpoint_disabled") {
    const appName = n.appName ?? "an app";
    const link = `${appUrl()}${appNoticePath(n.appId ?? "", n.kind)}`;
    if (n.kind === "webhook_endpoint_disabled") {
      return {
        to: n.email,
        subject: `Webhook endpoint of app “${appName}” disabled`,
        text: [
          `The webhook endpoint of the app “${appName}” answered nothing but failures for days, so it was disabled on ${n.dueDate}: no more delivery attempts until you press Enable. Events are still written and listed by GET /webhooks/events.`,
          "",
          `Fix the endpoint, then Enable it: ${link}`,
          "",
          WHY_APP,
        ].join("\n"),
      };
    }
    return {
      to: n.email,
      subject: `A refresh token of app “${appName}” was revoked as leaked`,
      text: [
        `A refresh token that the app “${appName}” holds for ${n.companyName} was reported as leaked on ${n.dueDate}, and its whole family was revoked: the access and refresh tokens of that authorisation no longer work. The app needs to be authorised again.`,
        "",
        `Installed apps: ${link}`,
        "",
        WHY_APP,
      ].join("\n"),
    };
  }
  if (n.kind === "recovery_code_used") {
    // Mailed when the code is used (lib/auth/security-events.ts); listed here only in case.
    return { to: n.email, subject: "A recovery code was used to sign in", text: `${appUrl()}/settings/account` };
  }
  const integrationName = n.integrationName ?? "a private integration";
  const where = n.locationName ? `the sub-account ${n.locationName}` : `the agency ${n.companyName}`;
  const link = `${appUrl()}${reminderPath({ id: n.integrationId ?? "", locationId: n.locationId }, n.kind)}`;
  if (n.kind === "integration_revoked") {
    return {
      to: n.email,
      subject: `Private integration “${integrationName}” revoked: its token was reported as leaked`,
      text: [
        `The token of the private integration “${integrationName}” of ${where} was reported as leaked on ${n.dueDate}, so the integration is Revoked: its token no longer works.`,
        "",
        `Rotate and expire this token now, to issue a new one: ${link}`,
        "",
        WHY_INTEGRATION,
      ].join("\n"),
    };
  }
  if (n.kind === "expiry") {
    const days = Math.round(
      (Date.parse(`${n.dueDate}T00:00:00Z`) - Math.floor(now.getTime() / DAY_MS) * DAY_MS) / DAY_MS,
    );
    const when = days <= 0 ? "today is its last day" : days === 1 ? "1 day left" : `${days} days left`;
    return {
      to: n.email,
      subject: `Private integration “${integrationName}” expires on ${n.dueDate}`,
      text: [
        `The private integration “${integrationName}” of ${where} expires on ${n.dueDate} (${when}): its token stops working after that day.`,
        "",
        `Extend its expiry: ${link}`,
        "",
        WHY_INTEGRATION,
      ].join("\n"),
    };
  }
  return {
    to: n.email,
    subject: `Rotate the token of private integration “${integrationName}”`,
    text: [
      `The token of the private integration “${integrationName}” of ${where} reached 90 days on ${n.dueDate}: its rotation is due.`,
      "",
      `Rotate and expire this token later: ${link}`,
      "",
      WHY_INTEGRATION,
    ].join("\n"),
  };
}
