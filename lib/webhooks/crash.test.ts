import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { insertAppRow } from "@/lib/testing/webhook-delivery";
import type { WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { withWebhookReceiver } from "@/lib/testing/webhook-receiver-hooks";
import { LEASE_MS } from "./claim";
import { dispatchDueEvents } from "./dispatcher";
import { enqueueWebhookEvents } from "./outbox";

// Two processes need one database: PostgreSQL only (PGlite in memory belongs to this process).
const onPostgres = (process.env.DATABASE_URL ?? "").startsWith("postgres");

describe.skipIf(!onPostgres)("an instance killed mid-delivery (SIGKILL)", () => {
  let receiver: WebhookReceiver;
  withWebhookReceiver((started) => {
    receiver = started;
  });

  it("loses no event: another instance delivers every one of them once the lease ends", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const app = await insertAppRow(company.id, { name: "Crash app", webhookUrl: receiver.url });
    const ids = await db().$transaction((tx) =>
      enqueueWebhookEvents(
        tx,
        Array.from({ length: 6 }, (_, i) => ({
          appId: app.id,
          type: "INSTALL",
          targetUrl: receiver.url,
          payload: { type: "INSTALL", locationId: `loc-${i}` },
        })),
      ),
    );
    receiver.respond = () => "hang"; // the child's requests stay in flight

    const child = spawn(process.execPath, ["--import", "tsx", "lib/testing/dispatcher-process.ts"], {
      env: { ...process.env, DISPATCH_APP_IDS: app.id, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      const deadline = Date.now() + 20_000;
      while (new Set(receiver.received.map((w) => w.headers["webhook-id"])).size < ids.length) {
        if (Date.now() > deadline) throw new Error("the child dispatcher did not send every event in time");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    const claimed = await db().webhookEvent.findMany({ where: { appId: app.id } });
    expect(claimed.every((e) => e.status === "pending" && e.lockedUntil !== null)).toBe(true);

    receiver.respond = () => 200;
    // Before the lease ends nobody takes them over; after it, this instance delivers them all.
    expect((await dispatchDueEvents({ appIds: [app.id], allowPrivate: true })).claimed).toBe(0);
    const summary = await dispatchDueEvents({
      now: new Date(Date.now() + LEASE_MS + 1000),
      appIds: [app.id],
      allowPrivate: true,
    });
    expect(summary).toMatchObject({ claimed: ids.length, delivered: ids.length });
    const rows = await db().webhookEvent.findMany({ where: { appId: app.id } });
    expect(rows.every((e) => e.status === "delivered")).toBe(true);
    const answered = receiver.received.filter((w) => ids.includes(String(w.headers["webhook-id"])));
    expect(new Set(answered.map((w) => w.headers["webhook-id"]))).toEqual(new Set(ids));
  });
});
