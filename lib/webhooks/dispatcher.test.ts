// Over 250 lines on purpose: the dispatcher's rules (backoff, delivery to a real receiver, retries,
// timeouts, leases) share one receiver server and clock helpers.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { later } from "@/lib/testing/clock";
import { makeAgency } from "@/lib/testing/fixtures";
import { insertAppRow } from "@/lib/testing/webhook-delivery";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { BACKOFF_SCHEDULE_MS, nextAttemptAfterFailure, RETRY_WINDOW_MS, retryDelayMs } from "./backoff";
import { claimDueEvents, LEASE_MS } from "./claim";
import { deliverClaimedEvent } from "./deliver";
import { dispatchDueEvents, startDispatcher, stopDispatcher } from "./dispatcher";
import { enqueueWebhookEvents } from "./outbox";
import { redeliverWebhookEvent } from "./redeliver";
import { RESPONSE_BODY_LIMIT_BYTES, responseBodyExcerpt, type SendWebhookInput } from "./sender";
import { verifyWebhookSignature } from "./signer";
import { webhookKeysJwks } from "./signing-key";

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const MINUTE = 60 * SECOND;
const noJitter = () => 0;

let receiver: WebhookReceiver;
let companyId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  companyId = (await makeAgency({ locations: 1 })).company.id;
});
afterAll(async () => {
  await stopDispatcher();
  await receiver.stop();
});

/** An app of its own per test, so tests (and other files sharing PostgreSQL) never see each other's events. */
/** An app of the agency whose endpoint is `webhookUrl` (the receiver by default). */
function hookedApp(webhookUrl: string | null = receiver.url) {
  return insertAppRow(companyId, { name: "Hooked app", webhookUrl, scopes: ["contacts.readonly"] });
}

/** `count` INSTALL events of `app` (sub-accounts loc-0, loc-1, …) due at `now`, to `url` or its endpoint. */
async function enqueueInstalls(app: { id: string; webhookUrl: string | null }, now: Date, count = 1, url?: string) {
  return db().$transaction((tx) =>
    enqueueWebhookEvents(
      tx,
      Array.from({ length: count }, (_, i) => ({
        appId: app.id,
        type: "INSTALL",
        targetUrl: url ?? app.webhookUrl ?? "",
        payload: { type: "INSTALL", appId: app.id, installType: "Location", locationId: `loc-${i}`, companyId },
      })),
      now,
    ),
  );
}

const eventRow = (id: string) =>
  db().webhookEvent.findUniqueOrThrow({
    where: { id },
    include: { deliveryLogs: { orderBy: { attemptedAt: "asc" } } },
  });
/**
 * One event of a new app whose endpoint is `server` (started here on a free loopback port, and
 * closed with its connections afterwards), dispatched once now: its row as it then stands.
 */
async function deliveredOnceTo(server: Server, options: { timeoutMs?: number }) {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const app = await hookedApp(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true, ...options });
    return await eventRow(id!);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
const receivedIds = () => receiver.received.map((w) => w.headers["webhook-id"]);

describe("backoff rules", () => {
  it("follows the schedule 30s, 1m, 2m, 5m, 10m, 30m, 1h, 2h, 4h, 8h, then every 8h", () => {
    const expected = [30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 28800, 28800].map((s) => s * SECOND);
    expect(expected.map((_, i) => retryDelayMs(i + 1, noJitter))).toEqual(expected);
    expect(BACKOFF_SCHEDULE_MS).toHaveLength(10);
  });

  it("starts with WEBHOOK_FIRST_RETRY_SECONDS when it is set; the later steps stay", () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, noJitter, 10 * SECOND))).toEqual([10 * SECOND, MINUTE, 2 * MINUTE]);
    const start = new Date("2026-01-01T00:00:00.000Z");
    const first = {
      failedAttempts: 1,
      retryStartedAt: start,
      attemptedAt: start,
      random: noJitter,
      firstRetryMs: 10 * SECOND,
    };
    expect(nextAttemptAfterFailure(first)).toEqual(later(start, 10 * SECOND));
    expect(nextAttemptAfterFailure({ ...first, failedAttempts: 2 })).toEqual(later(start, MINUTE));
  });

  it("adds up to 10% jitter, never less than the schedule", () => {
    expect(retryDelayMs(1, () => 0.999)).toBeLessThanOrEqual(33 * SECOND);
    expect(retryDelayMs(1, () => 0.5)).toBe(31.5 * SECOND);
  });

  it("keeps retrying for at least 24 hours, then gives up", () => {
    const start = new Date("2026-01-01T00:00:00.000Z");
    let attemptedAt = start;
    let failed = 0;
    const attempts: Date[] = [];
    for (;;) {
      attempts.push(attemptedAt);
      failed += 1;
      const next = nextAttemptAfterFailure({
        failedAttempts: failed,
        retryStartedAt: start,
        attemptedAt,
        random: Math.random,
      });
      if (!next) break;
      attemptedAt = next;
    }
    const last = attempts.at(-1)!;
    expect(last.getTime() - start.getTime()).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    expect(last.getTime() - start.getTime()).toBeLessThan(RETRY_WINDOW_MS + 9 * HOUR);
    expect(attempts.length).toBeGreaterThanOrEqual(12);
  });

  it("honours a longer Retry-After, capped at 8 hours", () => {
    const start = new Date("2026-01-01T00:00:00.000Z");
    const base = { failedAttempts: 1, retryStartedAt: start, attemptedAt: start, random: noJitter };
    expect(nextAttemptAfterFailure({ ...base, retryAfterMs: HOUR })).toEqual(later(start, HOUR));
    expect(nextAttemptAfterFailure({ ...base, retryAfterMs: 5 * SECOND })).toEqual(later(start, 30 * SECOND));
    expect(nextAttemptAfterFailure({ ...base, retryAfterMs: 100 * HOUR })).toEqual(later(start, 8 * HOUR));
  });
});

describe("delivery to a real HTTP receiver", () => {
  it("delivers an INSTALL event signed so that the published key verifies it", async () => {
    const app = await hookedApp();
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    const summary = await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true });
    expect(summary).toMatchObject({ claimed: 1, delivered: 1 });

    const webhook = receiver.received.find((w) => w.headers["webhook-id"] === id)!;
    expect(webhook).toBeDefined();
    expect(webhook.headers["content-type"]).toBe("application/json");
    expect(
      verifyWebhookSignature({ headers: webhook.headers, body: webhook.body, keys: await webhookKeysJwks() }),
    ).toBe(true);
    // The body is the payload as written, keys in order, with webhookId equal to webhook-id.
    expect(webhook.body.startsWith('{"type":"INSTALL","appId"')).toBe(true);
    expect(JSON.parse(webhook.body)).toMatchObject({ type: "INSTALL", appId: app.id, webhookId: id });

    const row = await eventRow(id!);
    expect(row).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      lockedUntil: null,
    });
    expect(row.deliveredAt).not.toBeNull();
    expect(row.deliveryLogs).toMatchObject([{ attempt: 1, statusCode: 200, error: null, responseBody: "ok" }]);
  });

  it("keeps the first 1 KiB of a 5 KB answer, never logging it", async () => {
    const app = await hookedApp();
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    // "é" is two bytes: byte 1024 falls inside one, which is dropped rather than shown half.
    const answer = `${"a".repeat(1023)}${"é".repeat(2000)}`;
    expect(Buffer.byteLength(answer)).toBeGreaterThan(5000);
    receiver.respond = (w) => (w.headers["webhook-id"] === id ? 503 : 200);
    receiver.answer = (w) => (w.headers["webhook-id"] === id ? answer : "ok");
    const logged = [vi.spyOn(log, "info"), vi.spyOn(log, "warn"), vi.spyOn(log, "error")];
    try {
      await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true });
      const row = await eventRow(id!);
      expect(row.deliveryLogs).toMatchObject([{ statusCode: 503, responseBody: "a".repeat(1023) }]);
      const calls = JSON.stringify(logged.flatMap((spy) => spy.mock.calls));
      expect(calls).toContain(id);
      expect(calls).not.toContain("aaaa");
    } finally {
      receiver.respond = () => 200;
      receiver.answer = () => "ok";
      for (const spy of logged) spy.mockRestore();
    }
  });

  it("keeps a binary answer as text (bad bytes and NUL replaced), on either database", async () => {
    const app = await hookedApp();
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0x41]);
    receiver.answer = (w) => (w.headers["webhook-id"] === id ? binary : "ok");
    try {
      await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true });
      const row = await eventRow(id!);
      expect(row.deliveryLogs).toMatchObject([{ statusCode: 200, responseBody: "\uFFFDPNG\uFFFD\r\n\uFFFDA" }]);
    } finally {
      receiver.answer = () => "ok";
    }
  });

  it("stops reading an answer after 1 KiB and a byte instead of waiting for its end", async () => {
    // Sends 2 KiB and never ends the body: the attempt must not wait for the rest (nor for the
    // one-second cut-off that a slow trickle gets).
    const endless: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("b".repeat(2048));
    });
    const row = await deliveredOnceTo(endless, {});
    expect(row).toMatchObject({ status: "delivered" });
    expect(row.deliveryLogs[0]?.responseBody).toBe("b".repeat(RESPONSE_BODY_LIMIT_BYTES));
    expect(row.deliveryLogs[0]?.durationMs).toBeLessThan(1000);
  });

  it("retries a non-2xx answer with backoff and keeps the same webhook-id", async () => {
    const app = await hookedApp();
    const t0 = new Date();
    const [id] = await enqueueInstalls(app, t0);
    receiver.respond = (w) => (w.headers["webhook-id"] === id ? 500 : 200);
    try {
      expect(
        await dispatchDueEvents({ now: t0, appIds: [app.id], allowPrivate: true, random: noJitter }),
      ).toMatchObject({
        claimed: 1,
        retrying: 1,
      });
      let row = await eventRow(id!);
      expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500 });
      expect(row.nextAttemptAt.getTime() - t0.getTime()).toBeGreaterThanOrEqual(30 * SECOND);
      expect(row.nextAttemptAt.getTime() - t0.getTime()).toBeLessThan(31 * SECOND);

      // Not due yet.
      expect(
        (await dispatchDueEvents({ now: later(t0, 20 * SECOND), appIds: [app.id], allowPrivate: true })).claimed,
      ).toBe(0);
      // Second attempt fails too; the next one is a minute later.
      await dispatchDueEvents({ now: later(t0, 31 * SECOND), appIds: [app.id], allowPrivate: true, random: noJitter });
      row = await eventRow(id!);
      expect(row).toMatchObject({ status: "pending", attempts: 2 });
      expect(row.nextAttemptAt.getTime() - t0.getTime()).toBeGreaterThanOrEqual(91 * SECOND);

      receiver.respond = () => 200;
      await dispatchDueEvents({ now: later(t0, 95 * SECOND), appIds: [app.id], allowPrivate: true });
      row = await eventRow(id!);
      expect(row).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
      expect(row.deliveryLogs.map((d) => d.statusCode)).toEqual([500, 500, 200]);
      expect(receivedIds().filter((x) => x === id)).toHaveLength(3);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it.each([
    [302, "a redirect is not followed"],
    [404, "not found"],
    [429, "rate limited"],
  ])("treats %i (%s) as a failed attempt", async (status) => {
    const app = await hookedApp();
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    receiver.respond = (w) => (w.headers["webhook-id"] === id ? status : 200);
    try {
      await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true });
      expect(await eventRow(id!)).toMatchObject({ status: "pending", attempts: 1, lastStatus: status });
    } finally {
      receiver.respond = () => 200;
    }
  });

  it("does not lose an event while the receiver is down, and delivers it once it is back", async () => {
    const app = await hookedApp();
    const t0 = new Date();
    const ids = await enqueueInstalls(app, t0, 3);
    await receiver.stop();
    try {
      const summary = await dispatchDueEvents({ now: t0, appIds: [app.id], allowPrivate: true, random: noJitter });
      expect(summary).toMatchObject({ claimed: 3, retrying: 3 });
      for (const id of ids) {
        expect(await eventRow(id)).toMatchObject({
          status: "pending",
          lastStatus: null,
          lastError: "connection refused",
        });
      }
      // Still down at the second attempt.
      await dispatchDueEvents({ now: later(t0, 31 * SECOND), appIds: [app.id], allowPrivate: true, random: noJitter });
    } finally {
      await receiver.start();
    }
    const summary = await dispatchDueEvents({ now: later(t0, 92 * SECOND), appIds: [app.id], allowPrivate: true });
    expect(summary).toMatchObject({ claimed: 3, delivered: 3 });
    for (const id of ids) {
      const row = await eventRow(id);
      expect(row).toMatchObject({ status: "delivered", attempts: 3 });
      expect(row.deliveryLogs.map((d) => d.error)).toEqual(["connection refused", "connection refused", null]);
      // No answer, no response body.
      expect(row.deliveryLogs.map((d) => d.responseBody)).toEqual([null, null, "ok"]);
      expect(receivedIds()).toContain(id);
    }
  });

  it("gives up on a receiver that does not answer within the timeout, and retries", async () => {
    const silent: Server = createServer(() => {}); // never answers
    const row = await deliveredOnceTo(silent, { timeoutMs: 300 });
    expect(row).toMatchObject({ status: "pending", lastError: "timed out after 0.3 s" });
    expect(row.deliveryLogs[0]?.durationMs).toBeGreaterThanOrEqual(290);
  });

  it("refuses a loopback target unless WEBHOOK_ALLOW_PRIVATE is on, and retries it", async () => {
    const app = await hookedApp();
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: false });
    const row = await eventRow(id!);
    expect(row.status).toBe("pending");
    expect(row.lastError).toMatch(/^refused: .*non-public/);
    expect(receivedIds()).not.toContain(id);
  });
});

describe("the response body's text", () => {
  it("is the first 1 KiB as UTF-8, a character cut by the limit dropped, a short bad ending replaced", () => {
    expect(responseBodyExcerpt(Buffer.from("thanks"))).toBe("thanks");
    expect(responseBodyExcerpt(Buffer.alloc(0))).toBe("");
    const cut = Buffer.from(`${"a".repeat(1023)}€€`);
    expect(responseBodyExcerpt(cut)).toBe("a".repeat(1023));
    expect(responseBodyExcerpt(Buffer.from([0x41, 0xe2, 0x82]))).toBe("A\uFFFD");
    expect(responseBodyExcerpt(Buffer.from("a\u0000b"))).toBe("a\uFFFDb");
    expect(responseBodyExcerpt(Buffer.alloc(4096, 0x7a))).toHaveLength(RESPONSE_BODY_LIMIT_BYTES);
  });
});

describe("giving up after 24 hours", () => {
  it("marks the event failed on the first attempt at or after 24 hours, with every attempt logged", async () => {
    const app = await hookedApp("https://hooks.example.test/always-down");
    const t0 = new Date();
    const [id] = await enqueueInstalls(app, t0);
    const send = async (_: SendWebhookInput) => ({ statusCode: 503, durationMs: 5 });
    let now = t0;
    for (let i = 0; i < 40; i++) {
      await dispatchDueEvents({ now, appIds: [app.id], send });
      const row = await eventRow(id!);
      if (row.status !== "pending") break;
      now = row.nextAttemptAt;
    }
    const row = await eventRow(id!);
    expect(row.status).toBe("failed");
    expect(row.lastAttemptAt!.getTime() - t0.getTime()).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    const previous = row.deliveryLogs.at(-2)!.attemptedAt;
    expect(previous.getTime() - t0.getTime()).toBeLessThan(RETRY_WINDOW_MS);
    expect(row.deliveryLogs.length).toBe(row.attempts);
    expect(row.deliveryLogs.every((d) => d.statusCode === 503)).toBe(true);
    // A failed event is not claimed again.
    expect((await dispatchDueEvents({ now: later(now, 100 * HOUR), appIds: [app.id], send })).claimed).toBe(0);
  });
});

describe("redeliver", () => {
  it("puts a failed or delivered event back in the queue as a new retry series, same webhook-id", async () => {
    const app = await hookedApp();
    const t0 = new Date();
    const [id] = await enqueueInstalls(app, t0);
    await db().webhookEvent.update({ where: { id }, data: { status: "failed", attempts: 14 } });

    const redelivered = later(t0, 30 * HOUR);
    await redeliverWebhookEvent(id!, companyId, redelivered);
    expect(await eventRow(id!)).toMatchObject({
      status: "pending",
      attempts: 0,
      retryStartedAt: redelivered,
      nextAttemptAt: redelivered,
    });
    await dispatchDueEvents({ now: redelivered, appIds: [app.id], allowPrivate: true });
    expect(await eventRow(id!)).toMatchObject({ status: "delivered", attempts: 1 });

    await redeliverWebhookEvent(id!, companyId, later(redelivered, 60 * SECOND));
    await dispatchDueEvents({ now: later(redelivered, 60 * SECOND), appIds: [app.id], allowPrivate: true });
    expect(receivedIds().filter((x) => x === id)).toHaveLength(2);
    expect((await eventRow(id!)).deliveryLogs).toHaveLength(2);
  });

  it("sends to the app's current webhook URL", async () => {
    const app = await hookedApp("https://old.example.test/hook");
    const now = new Date();
    const [id] = await enqueueInstalls(app, now);
    await db().app.update({ where: { id: app.id }, data: { webhookUrl: receiver.url } });
    await redeliverWebhookEvent(id!, companyId, now);
    await dispatchDueEvents({ now, appIds: [app.id], allowPrivate: true });
    expect(receivedIds()).toContain(id);
  });

  it("is refused for another agency's event, and for an app without a webhook URL", async () => {
    const app = await hookedApp();
    const [id] = await enqueueInstalls(app, new Date());
    const other = await makeAgency({ locations: 0 });
    await expect(redeliverWebhookEvent(id!, other.company.id)).rejects.toMatchObject({ kind: "not_found" });
    await expect(redeliverWebhookEvent("no-such-event", companyId)).rejects.toMatchObject({ kind: "not_found" });
    await db().app.update({ where: { id: app.id }, data: { webhookUrl: null } });
    await expect(redeliverWebhookEvent(id!, companyId)).rejects.toMatchObject({ kind: "invalid" });
  });
});

describe("claims", () => {
  it("a claim by an instance that died is delivered by another after the lease; the late result is ignored", async () => {
    const app = await hookedApp();
    const t0 = new Date();
    const [id] = await enqueueInstalls(app, t0);
    const [dead] = await claimDueEvents({ now: t0, appIds: [app.id] }); // then SIGKILL: never finishes
    expect(dead?.id).toBe(id);

    expect(
      (await dispatchDueEvents({ now: later(t0, LEASE_MS - SECOND), appIds: [app.id], allowPrivate: true })).claimed,
    ).toBe(0);
    expect(await dispatchDueEvents({ now: later(t0, LEASE_MS), appIds: [app.id], allowPrivate: true })).toMatchObject({
      claimed: 1,
      delivered: 1,
    });
    // The "dead" instance was only paused and now reports a failure: it no longer holds the claim.
    const outcome = await deliverClaimedEvent(dead!, {
      now: later(t0, LEASE_MS + SECOND),
      send: async () => ({ statusCode: 500, durationMs: 1 }),
    });
    expect(outcome).toBe("claim_lost");
    expect(await eventRow(id!)).toMatchObject({ status: "delivered", lastStatus: 200 });
  });

  it("two dispatchers running at once never claim the same event (each webhook-id arrives exactly once)", async () => {
    const app = await hookedApp();
    const now = new Date();
    const ids = await enqueueInstalls(app, now, 40);
    const claimedBy: string[][] = [[], [], [], []];
    const counting = (n: number) => async (input: SendWebhookInput) => {
      claimedBy[n]!.push(input.headers["webhook-id"]!);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { statusCode: 200, durationMs: 5 };
    };
    const runner = async (n: number) => {
      for (;;) {
        const summary = await dispatchDueEvents({ now, appIds: [app.id], limit: 3, send: counting(n) });
        if (summary.claimed === 0) return;
      }
    };
    await Promise.all([runner(0), runner(1), runner(2), runner(3)]);
    const all = claimedBy.flat();
    expect(all).toHaveLength(40);
    expect(new Set(all)).toEqual(new Set(ids));
    const rows = await db().webhookEvent.findMany({ where: { appId: app.id }, include: { deliveryLogs: true } });
    expect(rows.every((r) => r.status === "delivered" && r.deliveryLogs.length === 1)).toBe(true);
  });
});

describe("the dispatcher loop", () => {
  it("delivers what is enqueued without being asked, and stops cleanly", async () => {
    const app = await hookedApp();
    startDispatcher({ intervalMs: 100, appIds: [app.id], allowPrivate: true });
    startDispatcher({ intervalMs: 100, appIds: [app.id], allowPrivate: true }); // idempotent
    const ids = await enqueueInstalls(app, new Date(), 5);
    const deadline = Date.now() + 10_000;
    while (ids.some((id) => !receivedIds().includes(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stopDispatcher();
    for (const id of ids) expect(receivedIds().filter((x) => x === id)).toHaveLength(1);
    const rows = await db().webhookEvent.findMany({ where: { appId: app.id } });
    expect(rows.every((r) => r.status === "delivered")).toBe(true);
  });
});
