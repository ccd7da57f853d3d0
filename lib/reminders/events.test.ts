import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import type { CreatedApp } from "@/lib/apps/registry";
import { revokeLeakedCredentials } from "@/lib/credentials/revoke";
import { db } from "@/lib/db/client";
import { appUrl, resetEnvCache } from "@/lib/env";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { makeManagedAgency } from "@/lib/testing/managers";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";
import { mailsTo, startTestSmtpServer } from "@/lib/testing/smtp";
import { disableIfFailingTooLong, setEndpointDisabledNotifier } from "@/lib/webhooks/endpoint-health";
import { eventEmailsSent, notifyEvent, notifyEventSafely } from "./events";
import { listNotifications, setTokenEmails } from "./notifications";

/**
 * Notices of events against the real database and a real SMTP server: a private integration
 * revoked as leaked (its managers), a refresh token's family revoked as leaked (the installing
 * agency's owners and admins, naming the app), a disabled webhook endpoint (the app's agency's
 * owners and admins); each person once, even when two callers report the same leak at once.
 */

const DAY = 86_400_000;
let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
const savedSmtpUrl = process.env.SMTP_URL;

let agency: TestAgency;
let admin: Actor;
let subAdmin: Actor;
let bystanders: Actor[];

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  resetEnvCache();
  ({ agency, admin, subAdmin, bystanders } = await makeManagedAgency());
  await setTokenEmails(agency.owner.id, true);
  await setTokenEmails(admin.id, false);
});

afterAll(async () => {
  await eventEmailsSent();
  setEndpointDisabledNotifier(undefined);
  if (savedSmtpUrl === undefined) delete process.env.SMTP_URL;
  else process.env.SMTP_URL = savedSmtpUrl;
  resetEnvCache();
  await smtp.close();
});

const recipientsOf = async (where: { integrationId?: string; appId?: string }) =>
  (await db().notification.findMany({ where, select: { userId: true, kind: true } })).map((n) => n.userId).sort();

describe("a private integration revoked as leaked", () => {
  it("notifies each of its managers once, in the app and by e-mail, even reported twice at once", async () => {
    const locationId = agency.locations[0]!.id;
    const { integration, token } = await makeIntegration(agency, { locationId, name: "Leaky export" });
    const before = mailsTo(smtp.received, agency.owner).length;
    const reason = "Reported as leaked through POST /credentials/revoke.";
    const [one, two] = await Promise.all([
      revokeLeakedCredentials([token], reason),
      revokeLeakedCredentials([token], reason),
    ]);
    expect([one.revoked[0], two.revoked[0]].filter(Boolean)).toHaveLength(1);
    await eventEmailsSent();

    expect(await recipientsOf({ integrationId: integration.id })).toEqual(
      [agency.owner.id, admin.id, subAdmin.id].sort(),
    );
    for (const person of bystanders) expect(await listNotifications(person.id)).toEqual([]);
    const [listed] = await listNotifications(subAdmin.id);
    expect(listed).toMatchObject({
      kind: "integration_revoked",
      integrationName: "Leaky export",
      locationName: "Sub-account 1",
      read: false,
      href: `/location/${locationId}/settings/private-integrations?integration=${integration.id}&action=rotate-now`,
    });

    // The owner keeps e-mails on: one mail, with the link and never the token. The admin turned them off.
    const mails = mailsTo(smtp.received, agency.owner).slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain("Leaky export");
    expect(mails[0]!.text).toContain("reported as leaked");
    expect(mails[0]!.text).toContain(`${appUrl()}${listed!.href}`);
    expect(mails[0]!.text).not.toContain(token);
    expect(mails[0]!.text).not.toContain(token.slice(4));
    expect(mailsTo(smtp.received, admin)).toEqual([]);
  });
});

describe("a refresh token's family revoked as leaked", () => {
  it("notifies the installing agency's owners and admins once, naming the app", async () => {
    const developer = await makeAgency({ locations: 0 });
    const app: CreatedApp = await makeApp(developer.company.id, { name: "Calendar Sync" });
    const locationId = agency.locations[0]!.id;
    const tokens = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [locationId] });
    const before = mailsTo(smtp.received, agency.owner).length;
    const reason = "Reported as leaked through POST /credentials/revoke.";
    const [one, two] = await Promise.all([
      revokeLeakedCredentials([tokens.refresh_token], reason),
      revokeLeakedCredentials([tokens.refresh_token], reason),
    ]);
    expect(one.revoked[0] || two.revoked[0]).toBe(true);
    await eventEmailsSent();

    // The agency's owner and admin; not the sub-account admin, nor the app's developers.
    expect(await recipientsOf({ appId: app.app.id })).toEqual([agency.owner.id, admin.id].sort());
    const [listed] = await listNotifications(admin.id);
    expect(listed).toMatchObject({ kind: "refresh_token_revoked", appName: "Calendar Sync", href: "/marketplace" });
    const mails = mailsTo(smtp.received, agency.owner).slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain("Calendar Sync");
    expect(mails[0]!.text).not.toContain(tokens.refresh_token);
  });
});

describe("a disabled webhook endpoint", () => {
  it("notifies the app's agency's owner and admins once, naming the app, linking its webhooks page", async () => {
    setEndpointDisabledNotifier(({ appId, disabledAt }) =>
      notifyEventSafely({ kind: "webhook_endpoint_disabled", appId, at: disabledAt }),
    );
    const developer = await makeAgency({ locations: 0 });
    const devAdmin = await makeUser(developer.company.id, "agency_admin");
    const devUser = await makeUser(developer.company.id, "agency_user");
    await setTokenEmails(devAdmin.id, true);
    const app = await makeApp(developer.company.id, {
      name: "Failing Hooks",
      webhookUrl: "https://hooks.example.test/in",
    });
    // Six days of nothing but failed attempts.
    const t0 = new Date(Date.now() - 6 * DAY);
    const [eventId] = (
      await db().webhookEvent.createManyAndReturn({
        data: [
          {
            appId: app.app.id,
            type: "INSTALL",
            targetUrl: "https://hooks.example.test/in",
            payload: { type: "INSTALL" },
            nextAttemptAt: t0,
            createdAt: t0,
          },
        ],
        select: { id: true },
      })
    ).map((e) => e.id);
    await db().webhookDelivery.create({
      data: { eventId: eventId!, attemptedAt: t0, statusCode: 503, durationMs: 1, attempt: 1 },
    });
    const now = new Date();
    const results = await Promise.all([
      disableIfFailingTooLong(app.app.id, now, 5),
      disableIfFailingTooLong(app.app.id, now, 5),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await eventEmailsSent();

    expect(await recipientsOf({ appId: app.app.id })).toEqual([developer.owner.id, devAdmin.id].sort());
    expect(await listNotifications(devUser.id)).toEqual([]);
    const [listed] = await listNotifications(devAdmin.id);
    expect(listed).toMatchObject({
      kind: "webhook_endpoint_disabled",
      appName: "Failing Hooks",
      href: `/developer/apps/${app.app.id}/webhooks`,
    });
    const mails = mailsTo(smtp.received, devAdmin);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Webhook endpoint of app “Failing Hooks” disabled");
    expect(mails[0]!.text).toContain(`${appUrl()}/developer/apps/${app.app.id}/webhooks`);
  });
});

describe("one event noticed by two instances at once", () => {
  it("notifies each person once (the milestone names the event)", async () => {
    const { integration } = await makeIntegration(agency, { name: "Twice noticed" });
    const event = {
      kind: "integration_revoked",
      integrationId: integration.id,
      companyId: agency.company.id,
      locationId: null,
      at: new Date(),
    } as const;
    const [one, two] = await Promise.all([notifyEvent(event, { mailer: async () => {} }), notifyEvent(event)]);
    expect(one.length + two.length).toBe(2);
    expect(await recipientsOf({ integrationId: integration.id })).toEqual([agency.owner.id, admin.id].sort());
    await eventEmailsSent();
  });
});
