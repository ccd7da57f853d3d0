import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { databaseHandle, db } from "@/lib/db/client";
import { type ApiAnswer, apiClient, basicAuth, expectError } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeApp } from "@/lib/testing/oauth";
import { MISSED_EVENTS_DEFAULT_LIMIT } from "@/lib/webhooks/missed-events";
import { enqueueWebhookEvents } from "@/lib/webhooks/outbox";

// An app's own endpoint, outside the versioned API: no Version.
const api = apiClient(apiRoutes, { version: null });

/**
 * GET /webhooks/events through its handler: HTTP Basic client credentials, the app's own events
 * oldest first with the payload exactly as delivered, pages joined by nextCursor, and a cursor that
 * never skips an event that commits late.
 *
 * On PostgreSQL an event is listed once every transaction that began before its own has ended,
 * across the whole server (other test runs share it), so reads that expect fresh events poll.
 */

type Event = { webhookId: string; type: string; createdAt: string; status: string; attempts: number; payload: unknown };

let agency: TestAgency;
let app: CreatedApp;
let otherApp: CreatedApp;

/** GET /webhooks/events?`query` as `credentials`: an app (Basic), an Authorization header as it stands, or none. */
function listEvents(query: string, credentials: CreatedApp | string | null = app): Promise<ApiAnswer> {
  if (typeof credentials === "string") return api.get(`/webhooks/events${query}`, { authorization: credentials });
  const basic = credentials ? { id: credentials.app.clientId, secret: credentials.clientSecret } : undefined;
  return api.get(`/webhooks/events${query}`, { basic });
}

/** `count` events of `target`, enqueued one by one, with a payload of nested JSON and awkward characters. */
async function enqueueEvents(target: CreatedApp, count: number, type = "TEST"): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const written = await db().$transaction((tx) =>
      enqueueWebhookEvents(tx, [
        {
          appId: target.app.id,
          type,
          targetUrl: "https://hooks.example.test/in",
          payload: { type, zeta: i, alpha: { nested: [1, "two"] }, text: 'é \u2028 "quoted"' },
        },
      ]),
    );
    ids.push(...written);
  }
  return ids;
}

/** Every event of `target`, page by page, once at least `atLeast` are visible. */
async function listAll(target: CreatedApp, limit: number, atLeast: number): Promise<Event[][]> {
  let pages: Event[][] = [];
  await expect
    .poll(
      async () => {
        pages = [];
        let after = "";
        for (;;) {
          const page = await listEvents(`?limit=${limit}${after ? `&after=${after}` : ""}`, target);
          expect(page.status).toBe(200);
          pages.push(page.body.events as Event[]);
          if (!page.body.nextCursor) break;
          after = String(page.body.nextCursor);
        }
        return pages.flat().length;
      },
      { timeout: 20_000 },
    )
    .toBeGreaterThanOrEqual(atLeast);
  return pages;
}

beforeAll(async () => {
  agency = await makeAgency({ locations: 0 });
  app = await makeApp(agency.company.id);
  otherApp = await makeApp(agency.company.id);
});

describe("authentication: the app's client credentials as HTTP Basic", () => {
  it.each([
    ["no Authorization header", null],
    ["a Bearer token", "Bearer abc"],
    ["a wrong secret", () => basicAuth(app.app.clientId, "wrong-secret")],
    ["an unknown client", () => basicAuth("no-such-client", "secret")],
    ["malformed Basic", "Basic !!!"],
  ])("%s: 401 invalid_client with a Basic challenge", async (_name, credentials) => {
    const value = typeof credentials === "function" ? credentials() : credentials;
    const result = await listEvents("", value);
    expectError(result, 401, "invalid_client");
    expect(result.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("other methods are refused with Allow: GET", async () => {
    const result = await api.post("/webhooks/events");
    expect(result.status).toBe(400);
    expect(result.headers.get("allow")).toContain("GET");
  });
});

describe("listing", () => {
  let written: string[];
  beforeAll(async () => {
    written = await enqueueEvents(app, 5);
    await enqueueEvents(otherApp, 2);
  });

  it("lists the app's own events oldest first, each with SPEC.md's fields and the payload as delivered", async () => {
    const events = (await listAll(app, 500, written.length)).flat();
    expect(events.map((e) => e.webhookId)).toEqual(written);
    const rows = await db().$queryRaw<{ id: string; body: string }[]>`
      SELECT id, payload::text AS body FROM "WebhookEvent" WHERE "appId" = ${app.app.id}`;
    const bodies = new Map(rows.map((r) => [r.id, r.body]));
    for (const event of events) {
      expect(Object.keys(event)).toEqual(["webhookId", "type", "createdAt", "status", "attempts", "payload"]);
      expect(event).toMatchObject({ type: "TEST", status: "pending", attempts: 0 });
      expect(event.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The dispatcher signs and sends the json column's text: the listed payload is that body.
      expect(JSON.stringify(event.payload)).toBe(bodies.get(event.webhookId));
      expect((event.payload as { webhookId: string }).webhookId).toBe(event.webhookId);
    }
  });

  it("pages with nextCursor, absent at the end, without gaps or repeats", async () => {
    const pages = await listAll(app, 2, written.length);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((e) => e.webhookId)).toEqual(written);
  });

  it("limit defaults to 100; a full last page still says there is nothing more", async () => {
    const all = await listEvents("");
    expect(all.status).toBe(200);
    expect((all.body.events as Event[]).length).toBeLessThanOrEqual(MISSED_EVENTS_DEFAULT_LIMIT);
    const exact = await listEvents(`?limit=${written.length}`);
    expect(exact.body.events).toHaveLength(written.length);
    expect(exact.body).not.toHaveProperty("nextCursor");
  });

  it("after also takes a webhookId, to resume from the last event processed", async () => {
    const result = await listEvents(`?after=${written[2]}`);
    expect(result.status).toBe(200);
    expect((result.body.events as Event[]).map((e) => e.webhookId)).toEqual(written.slice(3));
  });

  it("shows what happened to each delivery", async () => {
    await db().webhookEvent.update({ where: { id: written[0]! }, data: { status: "failed", attempts: 14 } });
    const result = await listEvents("?limit=1");
    expect((result.body.events as Event[])[0]).toMatchObject({ webhookId: written[0], status: "failed", attempts: 14 });
  });

  it.each([
    ["limit=0", /limit/],
    ["limit=501", /limit/],
    ["limit=abc", /limit/],
    ["limit=1.5", /limit/],
    ["limit=", /limit/],
    ["limit=1&limit=2", /more than once/],
    ["after=not-a-cursor!", /after/],
    [`after=${Buffer.from("12.nope").toString("base64url")}`, /after/],
    ["after=00000000-0000-4000-8000-000000000000", /no event of this app/],
    ["before=x", /does not take/],
  ])("?%s is 400 invalid_request", async (query, description) => {
    expectError(await listEvents(`?${query}`), 400, "invalid_request", description);
  });

  it("another app's webhookId is no cursor of this app", async () => {
    const [theirs] = await enqueueEvents(otherApp, 1);
    expectError(await listEvents(`?after=${theirs}`), 400, "invalid_request", /no event of this app/);
  });
});

describe.runIf(databaseHandle().kind === "postgresql")("an event that commits late", () => {
  it("is listed after the cursor that was handed out before it committed, never skipped", async () => {
    const lateApp = await makeApp(agency.company.id);
    const [first] = await enqueueEvents(lateApp, 1);
    await listAll(lateApp, 500, 1);

    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let lateId = "";
    // Begins (and takes its transaction id) first, commits last.
    const slow = db().$transaction(
      async (tx) => {
        [lateId = ""] = await enqueueWebhookEvents(tx, [
          {
            appId: lateApp.app.id,
            type: "LATE",
            targetUrl: "https://hooks.example.test/in",
            payload: { type: "LATE" },
          },
        ]);
        wrote();
        await committed;
      },
      { timeout: 30_000 },
    );
    await written;
    const [quick] = await enqueueEvents(lateApp, 1, "QUICK");

    const before = await listEvents("", lateApp);
    const seen = (before.body.events as Event[]).map((e) => e.webhookId);
    expect(seen).toContain(first);
    expect(seen).not.toContain(quick);
    expect(seen).not.toContain(lateId);

    commit();
    await slow;
    const pages = await listAll(lateApp, 500, 3);
    expect(pages.flat().map((e) => e.webhookId)).toEqual([first, lateId, quick]);
    const after = await listEvents(`?after=${seen.at(-1)}`, lateApp);
    expect((after.body.events as Event[]).map((e) => e.webhookId)).toEqual([lateId, quick]);
  });
});
