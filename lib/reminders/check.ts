import { type Actor, canManageAgencyIntegrations, canManageLocationIntegrations } from "@/lib/accounts/permissions";
import type { Role } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
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
      const allowed = integration.locationId
        ? canManageLocationIntegrations(actor, { id: integration.locationId, companyId: integration.companyId })
        : canManageAgencyIntegrations(actor, integration.companyId);
      if (allowed) rows.push({ userId: actor.id, integrationId: integration.id, milestone });
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

/** Owners and admins (agency, or sub-account admins) of the companies, as the permission rules see them. */
async function managers(companyIds: string[]): Promise<Map<string, Actor[]>> {
  const users = await db().user.findMany({
    where: { companyId: { in: companyIds }, removedAt: null, role: { in: MANAGING_ROLES } },
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      companyId: true,
      agencyPrivateIntegrations: true,
      locationPrivateIntegrations: true,
      memberships: { select: { locationId: true } },
    },
  });
  const byCompany = new Map<string, Actor[]>();
  for (const { memberships, ...user } of users) {
    const list = byCompany.get(user.companyId) ?? [];
    list.push({ ...user, locationIds: memberships.map((m) => m.locationId) });
    byCompany.set(user.companyId, list);
  }
  return byCompany;
}

interface PendingEmail {
  id: string;
  kind: "expiry" | "rotation_due";
  dueDate: string;
  email: string;
  integrationId: string;
  integrationName: string;
  locationId: string | null;
  locationName: string | null;
  companyName: string;
}

async function sendReminderEmails(mailer: Mailer, now: Date): Promise<{ emailed: number; failures: number }> {
  // Claimed in one statement: of instances sending at once, each notification goes to one.
  const claimed = await db().$queryRaw<PendingEmail[]>`
    WITH claim AS (
      UPDATE "Notification" n SET "emailedAt" = ${now}
      FROM "User" u
      WHERE u.id = n."userId" AND n."emailedAt" IS NULL AND n."readAt" IS NULL
        AND n."createdAt" >= ${new Date(now.getTime() - DAY_MS)} AND u."tokenEmails" AND u."removedAt" IS NULL
      RETURNING n.id, n.kind::text AS kind, n."dueDate", u.email, n."integrationId"
    )
    SELECT claim.*, i.name AS "integrationName", i."locationId", l.name AS "locationName", c.name AS "companyName"
    FROM claim
    JOIN "PrivateIntegration" i ON i.id = claim."integrationId"
    JOIN "Company" c ON c.id = i."companyId"
    LEFT JOIN "Location" l ON l.id = i."locationId"`;
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

/** Where a reminder leads: the integration's screen, with the dialog to open. */
export function reminderPath(
  integration: { id: string; locationId: string | null },
  kind: "expiry" | "rotation_due",
): string {
  const base = integration.locationId
    ? `/location/${integration.locationId}/settings/private-integrations`
    : "/settings/private-integrations";
  const action = kind === "expiry" ? "extend" : "rotate-later";
  return `${base}?integration=${encodeURIComponent(integration.id)}&action=${action}`;
}

/** The e-mail of one notification: the integration, the sub-account or agency, the date, the link. */
export function reminderEmail(n: PendingEmail, now: Date): ReminderEmail {
  const where = n.locationName ? `the sub-account ${n.locationName}` : `the agency ${n.companyName}`;
  const link = `${appUrl()}${reminderPath({ id: n.integrationId, locationId: n.locationId }, n.kind)}`;
  if (n.kind === "expiry") {
    const days = Math.round(
      (Date.parse(`${n.dueDate}T00:00:00Z`) - Math.floor(now.getTime() / DAY_MS) * DAY_MS) / DAY_MS,
    );
    const when = days <= 0 ? "today is its last day" : days === 1 ? "1 day left" : `${days} days left`;
    return {
      to: n.email,
      subject: `Private integration “${n.integrationName}” expires on ${n.dueDate}`,
      text: [
        `The private integration “${n.integrationName}” of ${where} expires on ${n.dueDate} (${when}): its token stops working after that day.`,
        "",
        `Extend its expiry: ${link}`,
        "",
        "You get this because you manage this integration. Turn these e-mails off under Settings › Account (Email me about my tokens).",
      ].join("\n"),
    };
  }
  return {
    to: n.email,
    subject: `Rotate the token of private integration “${n.integrationName}”`,
    text: [
      `The token of the private integration “${n.integrationName}” of ${where} reached 90 days on ${n.dueDate}: its rotation is due.`,
      "",
      `Rotate and expire this token later: ${link}`,
      "",
      "You get this because you manage this integration. Turn these e-mails off under Settings › Account (Email me about my tokens).",
    ].join("\n"),
  };
}
