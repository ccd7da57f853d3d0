import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";
import { enqueueInstallEvent, insertAppRow } from "@/lib/testing/webhook-delivery";
import type { WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { withWebhookReceiver } from "@/lib/testing/webhook-receiver-hooks";
import { developerWebhookLog, getAppForDeveloper, redeliverAsDeveloper } from "./deliveries";
import { dispatchDueEvents } from "./dispatcher";
import { verifyWebhookSignature } from "./signer";
import { webhookKeysJwks } from "./signing-key";

// The server action runs outside Next.js here: the session and the cache are stand-ins.
const session = vi.hoisted(() => ({ actor: null as Actor | null }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () => (session.actor ? signedInAs(session.actor) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
const { redeliverEvent } = await import("@/app/(admin)/developer/apps/[appId]/webhooks/actions");

let receiver: WebhookReceiver;
withWebhookReceiver((started) => {
  receiver = started;
});
beforeEach(() => {
  session.actor = null;
});

/** An app of `companyId` whose endpoint is this file's receiver. */
const receivingApp = (companyId: string) =>
  insertAppRow(companyId, { name: "Developer app", webhookUrl: receiver.url });

describe("who may open an app's webhooks page", () => {
  it("owners and admins of the app's agency; others get forbidden or not found", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 1 });
    const app = await receivingApp(company.id);
    const admin = await makeUser(company.id, "agency_admin");
    await expect(getAppForDeveloper(owner, app.id)).resolves.toEqual({
      id: app.id,
      name: app.name,
      webhookUrl: app.webhookUrl,
    });
    await expect(getAppForDeveloper(admin, app.id)).resolves.toMatchObject({ id: app.id });

    const agencyUser = await makeUser(company.id, "agency_user");
    const accountAdmin = await makeUser(company.id, "account_admin", { locationIds: [locations[0]!.id] });
    for (const actor of [agencyUser, accountAdmin]) {
      await expect(getAppForDeveloper(actor, app.id)).rejects.toMatchObject({ kind: "forbidden" });
      await expect(developerWebhookLog(actor, app.id)).rejects.toMatchObject({ kind: "forbidden" });
    }

    // Another agency's owner: the same answer as for an id that does not exist.
    const other = await makeAgency({ locations: 0 });
    for (const id of [app.id, "does-not-exist", "", "x".repeat(5000)]) {
      await expect(getAppForDeveloper(other.owner, id)).rejects.toMatchObject({
        kind: "not_found",
        message: "That app does not exist.",
      });
    }
    await expect(developerWebhookLog(other.owner, app.id)).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("the delivery log and Redeliver, against a real receiver", () => {
  it("shows the attempts, and Redeliver sends the same signed event again", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const app = await receivingApp(company.id);
    const empty = await developerWebhookLog(owner, app.id);
    expect(empty.events).toEqual([]);

    const t0 = new Date();
    const eventId = await enqueueInstallEvent(app.id, t0, receiver.url);
    receiver.respond = () => 503;
    await dispatchDueEvents({ now: t0, appIds: [app.id], allowPrivate: true });
    let log = await developerWebhookLog(owner, app.id);
    expect(log.events).toHaveLength(1);
    expect(log.events[0]).toMatchObject({
      id: eventId,
      type: "INSTALL",
      status: "pending",
      attempts: 1,
      lastStatus: 503,
    });
    expect(log.events[0]?.nextAttemptAt?.getTime()).toBeGreaterThan(t0.getTime());

    receiver.respond = () => 204;
    await dispatchDueEvents({ now: new Date(t0.getTime() + 60 * 60_000), appIds: [app.id], allowPrivate: true });
    log = await developerWebhookLog(owner, app.id);
    expect(log.events[0]).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 204, nextAttemptAt: null });
    expect(log.events[0]?.deliveredAt).toBeInstanceOf(Date);
    expect(log.events[0]?.recentAttempts.map((a) => a.statusCode)).toEqual([204, 503]);

    // Redeliver through the server action, as the button does.
    session.actor = owner;
    const state = await redeliverEvent({}, formData({ appId: app.id, eventId }));
    expect(state).toMatchObject({
      ok: true,
      message: "Redelivery requested.",
      // The button writes the time in the viewer's zone: the server sends the instant.
      data: { requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
    });
    log = await developerWebhookLog(owner, app.id);
    expect(log.events[0]).toMatchObject({ status: "pending", attempts: 0, deliveredAt: null });
    const before = receiver.received.length;
    await dispatchDueEvents({ appIds: [app.id], allowPrivate: true });
    log = await developerWebhookLog(owner, app.id);
    expect(log.events[0]).toMatchObject({ status: "delivered", attempts: 1, totalAttempts: 3 });

    const sent = receiver.received.slice(before).filter((w) => w.headers["webhook-id"] === eventId);
    expect(sent).toHaveLength(1);
    const webhook = sent[0]!;
    expect(JSON.parse(webhook.body)).toMatchObject({ type: "INSTALL", appId: app.id, webhookId: eventId });
    const verified = verifyWebhookSignature({
      headers: webhook.headers,
      body: webhook.body,
      keys: await webhookKeysJwks(),
    });
    expect(verified).toBe(true);
  });
});

describe("the Redeliver action's refusals", () => {
  it("needs a session, an owner or admin, the app's own agency, and an event of that app", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const app = await receivingApp(company.id);
    const otherApp = await receivingApp(company.id);
    const eventId = await enqueueInstallEvent(app.id, new Date(), receiver.url);
    const otherEventId = await enqueueInstallEvent(otherApp.id, new Date(), receiver.url);
    const stateOf = async () =>
      (await db().webhookEvent.findUniqueOrThrow({ where: { id: eventId }, select: { retryStartedAt: true } }))
        .retryStartedAt;
    const original = await stateOf();

    session.actor = null;
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId }))).toEqual({
      error: "Your session has ended. Sign in again.",
    });

    session.actor = await makeUser(company.id, "agency_user");
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId }))).toMatchObject({
      error: "Only the agency's owners and admins can manage its apps.",
    });

    session.actor = (await makeAgency({ locations: 0 })).owner;
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId }))).toMatchObject({
      error: "That app does not exist.",
    });

    session.actor = owner;
    // An event of another app, even of the same agency, is not this page's to redeliver.
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId: otherEventId }))).toMatchObject({
      error: "That webhook event does not exist.",
    });
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId: "nope" }))).toMatchObject({
      error: "That webhook event does not exist.",
    });
    expect(await redeliverEvent({}, formData({ appId: app.id }))).toMatchObject({
      fieldErrors: { eventId: expect.any(String) },
    });
    expect(await stateOf()).toEqual(original);

    // An app without a webhook URL says what to do.
    await db().app.update({ where: { id: app.id }, data: { webhookUrl: null } });
    expect(await redeliverEvent({}, formData({ appId: app.id, eventId }))).toMatchObject({
      error: "This app has no webhook URL. Add one before redelivering.",
    });
    await expect(redeliverAsDeveloper(owner, { appId: app.id, eventId })).rejects.toMatchObject({ kind: "invalid" });
  });
});
