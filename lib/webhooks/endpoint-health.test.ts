import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { enqueueInstallEvent, insertAppRow } from "@/lib/testing/webhook-delivery";
import { claimDueEvents } from "./claim";
import { deliverClaimedEvent } from "./deliver";
import {
  enableWebhookEndpoint,
  failingLongEnough,
  redeliverFailedSince,
  webhookEndpointHealth,
} from "./endpoint-health";
import { listMissedEvents } from "./missed-events";
import type { SendWebhookInput, SendWebhookResult } from "./sender";

/**
 * Webhook endpoint health with the clock as a parameter: the 24-hour success share, disabling after
 * WEBHOOK_DISABLE_AFTER_DAYS of nothing but failures (events still written and listed), Enable,
 * and Redeliver failed since a chosen time, each event once.
 */

const DAY = 86_400_000;
const refuse = async (_: SendWebhookInput): Promise<SendWebhookResult> => ({ statusCode: 503, durationMs: 1 });
const accept = async (_: SendWebhookInput): Promise<SendWebhookResult> => ({ statusCode: 200, durationMs: 1 });

let companyId: string;
beforeAll(async () => {
  companyId = (await makeAgency({ locations: 0 })).company.id;
});

/** An app of the agency with an endpoint, for its health to be judged. */
function watchedApp() {
  return insertAppRow(companyId, {
    name: "Health",
    webhookUrl: "https://hooks.example.test/in",
    scopes: ["contacts.readonly"],
  });
}

/** One round of attempts for this app's due events at `now`. */
async function attemptRound(appId: string, now: Date, send = refuse, disableAfterDays = 5) {
  const claimed = await claimDueEvents({ now, appIds: [appId] });
  for (const event of claimed) await deliverClaimedEvent(event, { now, send, disableAfterDays, random: () => 0 });
  return claimed.length;
}

const disabledAt = async (appId: string) =>
  (await db().app.findUniqueOrThrow({ where: { id: appId }, select: { webhookDisabledAt: true } })).webhookDisabledAt;

describe("failingLongEnough", () => {
  const now = new Date("2026-03-10T00:00:00Z");
  it.each([
    ["no failure", { lastSuccessAt: null, firstFailureSince: null }, 5, false],
    ["failing 4.9 days", { lastSuccessAt: null, firstFailureSince: later(now, -4.9 * DAY) }, 5, false],
    ["failing exactly 5 days", { lastSuccessAt: null, firstFailureSince: later(now, -5 * DAY) }, 5, true],
    ["a fraction of a day", { lastSuccessAt: later(now, -DAY), firstFailureSince: later(now, -3_600_000) }, 0.01, true],
  ] as const)("%s", (_name, streak, days, expected) => {
    expect(failingLongEnough(streak, now, days)).toBe(expected);
  });
});

describe("an endpoint that only fails is disabled after the days, and Enable resumes", () => {
  it("disables, keeps writing and listing events, then Enable delivers what is pending", async () => {
    const app = await watchedApp();
    const t0 = new Date(Date.now() - 10 * DAY);
    const first = await enqueueInstallEvent(app.id, t0);
    expect(await attemptRound(app.id, t0)).toBe(1);
    // A later event fails too; 4 days of failures are not enough.
    const second = await enqueueInstallEvent(app.id, later(t0, 4 * DAY));
    await attemptRound(app.id, later(t0, 4 * DAY));
    expect(await disabledAt(app.id)).toBeNull();
    // 5 days after the first failure, nothing but failures: disabled at that attempt.
    const third = await enqueueInstallEvent(app.id, later(t0, 5 * DAY));
    await attemptRound(app.id, later(t0, 5 * DAY));
    expect(await disabledAt(app.id)).toEqual(later(t0, 5 * DAY));

    // No more attempts; new events are still written and listed by the missed-events API.
    const fourth = await enqueueInstallEvent(app.id, later(t0, 6 * DAY));
    expect(await attemptRound(app.id, later(t0, 7 * DAY))).toBe(0);
    const listed = await listMissedEvents(app.id, { limit: 100 });
    expect(listed.events.map((e) => e.webhookId)).toEqual(expect.arrayContaining([first, second, third, fourth]));
    const health = await webhookEndpointHealth(app.id, later(t0, 5 * DAY));
    expect(health.attempts).toBeGreaterThan(0);
    expect(health).toMatchObject({ succeeded: 0, successShare: 0 });
    expect(health.disabledAt).toEqual(later(t0, 5 * DAY));

    // Enable: every pending event is attempted at once, as a new retry series.
    const now = later(t0, 8 * DAY);
    // (The first two gave up after their 24-hour retry window; Redeliver failed is for them.)
    const waiting = await db().webhookEvent.count({ where: { appId: app.id, status: "pending" } });
    expect(waiting).toBeGreaterThanOrEqual(2);
    const pending = await enableWebhookEndpoint(app.id, companyId, now);
    expect(pending).toBe(waiting);
    expect(await disabledAt(app.id)).toBeNull();
    expect(await attemptRound(app.id, now, accept)).toBe(waiting);
    const after = await webhookEndpointHealth(app.id, later(now, 1000));
    expect(after).toMatchObject({ attempts: waiting, succeeded: waiting, successShare: 1, disabledAt: null });
  });

  it("a success within the days keeps the endpoint on", async () => {
    const app = await watchedApp();
    const t0 = new Date(Date.now() - 10 * DAY);
    await enqueueInstallEvent(app.id, t0);
    await attemptRound(app.id, t0);
    await enqueueInstallEvent(app.id, later(t0, 3 * DAY));
    await attemptRound(app.id, later(t0, 3 * DAY), accept);
    await enqueueInstallEvent(app.id, later(t0, 6 * DAY));
    await attemptRound(app.id, later(t0, 6 * DAY));
    expect(await disabledAt(app.id)).toBeNull();
  });

  it("Enable and Redeliver failed are only for the app's own agency", async () => {
    const app = await watchedApp();
    const other = (await makeAgency({ locations: 0 })).company.id;
    await expect(enableWebhookEndpoint(app.id, other)).rejects.toMatchObject({ kind: "not_found" });
    await expect(redeliverFailedSince(app.id, other, new Date(0))).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("Redeliver failed since a chosen time", () => {
  it("queues each event written since then whose delivery was given up, once", async () => {
    const app = await watchedApp();
    const t0 = new Date(Date.now() - 20 * DAY);
    const ids = [
      await enqueueInstallEvent(app.id, t0),
      await enqueueInstallEvent(app.id, later(t0, DAY)),
      await enqueueInstallEvent(app.id, later(t0, 2 * DAY)),
    ];
    // Mark them failed (given up) as the retry window would.
    await db().webhookEvent.updateMany({ where: { id: { in: ids } }, data: { status: "failed" } });
    const delivered = await enqueueInstallEvent(app.id, later(t0, 2 * DAY));
    await attemptRound(app.id, later(t0, 2 * DAY), accept);

    const now = later(t0, 3 * DAY);
    expect(await redeliverFailedSince(app.id, companyId, later(t0, DAY), now)).toBe(2);
    expect(await redeliverFailedSince(app.id, companyId, later(t0, DAY), now)).toBe(0);
    const rows = await db().webhookEvent.findMany({ where: { appId: app.id }, select: { id: true, status: true } });
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      [ids[0]!]: "failed",
      [ids[1]!]: "pending",
      [ids[2]!]: "pending",
      [delivered]: "delivered",
    });
    expect(await attemptRound(app.id, now, accept)).toBe(2);
  });
});
