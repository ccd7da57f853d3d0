import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import type { TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { makeManagedAgency } from "@/lib/testing/managers";
import { mailsTo, type ReceivedMail, startTestSmtpServer } from "@/lib/testing/smtp";
import { checkReminders } from "./check";
import { type Mailer, smtpMailer } from "./mailer";
import { listNotifications, setTokenEmails, unreadNotificationCount } from "./notifications";

/**
 * Reminders against a real SMTP server (smtp-server on 127.0.0.1, started here) and the real
 * database: who is notified, each milestone once with two checks at the same time, the e-mail's
 * contents (the integration, the sub-account, the date, the link, never a token), the switch.
 */

let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
let received: ReceivedMail[];
let mailer: Mailer;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  received = smtp.received;
  mailer = smtpMailer(smtp.url, "Token Service <no-reply@example.test>") as Mailer;
});

afterAll(async () => {
  await smtp.close();
});

const DAY = 86_400_000;
const T = new Date();
const dateIn = (days: number, from = T) => new Date(from.getTime() + days * DAY).toISOString().slice(0, 10);

let agency: TestAgency;
let admin: Actor;
let subAdmin: Actor;
let bystanders: Actor[];

beforeAll(async () => {
  ({ agency, admin, subAdmin, bystanders } = await makeManagedAgency());
});

const managers = () => [agency.owner, admin, subAdmin];

async function notificationsOf(integrationId: string) {
  return db().notification.findMany({ where: { integrationId }, orderBy: { milestone: "asc" } });
}

describe("expiry reminders", () => {
  it("each milestone once to every owner and admin allowed to manage it, by e-mail too, with two checks at once", async () => {
    const locationId = agency.locations[0]!.id;
    const { integration, token } = await makeIntegration(agency, {
      locationId,
      name: "Nightly export",
      expires: dateIn(10),
      now: T,
    });
    const before = received.length;
    await Promise.all([checkReminders({ now: T, mailer }), checkReminders({ now: T, mailer })]);
    const rows = await notificationsOf(integration.id);
    expect(rows.map((r) => r.userId).sort()).toEqual(
      managers()
        .map((m) => m.id)
        .sort(),
    );
    expect(new Set(rows.map((r) => r.milestone))).toEqual(new Set([`expires-14d:${dateIn(10)}`]));
    const mails = mailsTo(received, ...managers(), ...bystanders).slice(0);
    expect(received.length - before).toBeGreaterThanOrEqual(3);
    expect(mails.map((m) => m.to).sort()).toEqual(
      managers()
        .map((m) => m.email)
        .sort(),
    );

    const mail = mails[0] as ReceivedMail;
    expect(mail.subject).toBe(`Private integration “Nightly export” expires on ${dateIn(10)}`);
    expect(mail.text).toContain("Nightly export");
    expect(mail.text).toContain("the sub-account Sub-account 1");
    expect(mail.text).toContain(dateIn(10));
    expect(mail.text).toContain(
      `${appUrl()}/location/${locationId}/settings/private-integrations?integration=${integration.id}&action=extend`,
    );
    expect(mail.text).not.toContain(token);
    expect(mail.text).not.toMatch(/pit-/);

    // The same milestone is never notified again, nor mailed.
    await checkReminders({ now: new Date(T.getTime() + DAY), mailer });
    expect(await notificationsOf(integration.id)).toHaveLength(3);
    expect(mailsTo(received, ...managers())).toHaveLength(3);

    // Four days on: 6 days left, the 7-day milestone; the switch stops one person's e-mails only.
    await setTokenEmails(admin.id, false);
    try {
      await Promise.all([
        checkReminders({ now: new Date(T.getTime() + 4 * DAY), mailer }),
        checkReminders({ now: new Date(T.getTime() + 4 * DAY), mailer }),
      ]);
    } finally {
      await setTokenEmails(admin.id, true);
    }
    const later = await notificationsOf(integration.id);
    expect(later.filter((r) => r.milestone === `expires-7d:${dateIn(10)}`)).toHaveLength(3);
    expect(mailsTo(received, ...managers())).toHaveLength(5);
    expect(mailsTo(received, admin)).toHaveLength(1);

    // In the app: listed, unread, linking to the dialog.
    const listed = await listNotifications(agency.owner.id);
    expect(listed.find((n) => n.dueDate === dateIn(10))).toMatchObject({
      kind: "expiry",
      integrationName: "Nightly export",
      locationName: "Sub-account 1",
      href: `/location/${locationId}/settings/private-integrations?integration=${integration.id}&action=extend`,
      read: false,
    });
    expect(await unreadNotificationCount(agency.owner.id)).toBeGreaterThanOrEqual(2);
    expect(mailsTo(received, ...bystanders)).toHaveLength(0);
  });

  it("a check after downtime notifies the nearest passed milestone only", async () => {
    const { integration } = await makeIntegration(agency, { name: "Late", expires: dateIn(20), now: T });
    // Nothing checked for 19 days: 1 day left.
    await checkReminders({ now: new Date(T.getTime() + 19 * DAY) });
    const rows = await notificationsOf(integration.id);
    expect(new Set(rows.map((r) => r.milestone))).toEqual(new Set([`expires-1d:${dateIn(20)}`]));
    // Agency integrations: the owner and the agency admin (the sub-account admin cannot manage them).
    expect(rows.map((r) => r.userId).sort()).toEqual([agency.owner.id, admin.id].sort());
  });

  it("none for a deleted or an already-expired integration", async () => {
    const locationId = agency.locations[0]!.id;
    const gone = await makeIntegration(agency, { locationId, name: "Gone", expires: dateIn(3), now: T });
    const past = await makeIntegration(agency, { locationId, name: "Past", expires: dateIn(0), now: T });
    await db().privateIntegration.delete({ where: { id: gone.integration.id } });
    await checkReminders({ now: new Date(T.getTime() + 2 * DAY), mailer });
    expect(
      await db().notification.count({ where: { integrationId: { in: [gone.integration.id, past.integration.id] } } }),
    ).toBe(0);
    expect(received.some((m) => m.subject.includes("“Gone”") || m.subject.includes("“Past”"))).toBe(false);
  });
});

describe("rotation due", () => {
  it("90 days after the token was issued, once per token, linking to Rotate and expire this token later", async () => {
    const { integration } = await makeIntegration(agency, { name: "Old token", now: T });
    await db().privateIntegrationToken.updateMany({
      where: { integrationId: integration.id },
      data: { createdAt: new Date(T.getTime() - 91 * DAY) },
    });
    await Promise.all([checkReminders({ now: T, mailer }), checkReminders({ now: T, mailer })]);
    await checkReminders({ now: T, mailer });
    const rows = await notificationsOf(integration.id);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.kind === "rotation_due")).toBe(true);
    const mails = received.filter((m) => m.subject === "Rotate the token of private integration “Old token”");
    expect(mails.map((m) => m.to).sort()).toEqual([agency.owner.email, admin.email].sort());
    expect(mails[0]?.text).toContain(
      `${appUrl()}/settings/private-integrations?integration=${integration.id}&action=rotate-later`,
    );
    expect(mails[0]?.text).toContain(`the agency ${agency.company.name}`);
  });
});
