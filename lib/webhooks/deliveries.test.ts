import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { insertAppRow } from "@/lib/testing/webhook-delivery";
import { listWebhookDeliveries } from "./deliveries";
import { dispatchDueEvents } from "./dispatcher";
import { enqueueWebhookEvents } from "./outbox";

describe("the delivery log", () => {
  it("lists an app's events newest first with their attempts, for the app's own agency only", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const app = await insertAppRow(company.id, { name: "Log app", webhookUrl: "https://hooks.example.test/x" });
    const t0 = new Date();
    const [first] = await db().$transaction((tx) =>
      enqueueWebhookEvents(
        tx,
        [{ appId: app.id, type: "INSTALL", targetUrl: app.webhookUrl!, payload: { type: "INSTALL" } }],
        t0,
      ),
    );
    const [second] = await db().$transaction((tx) =>
      enqueueWebhookEvents(
        tx,
        [{ appId: app.id, type: "UNINSTALL", targetUrl: app.webhookUrl!, payload: { type: "UNINSTALL" } }],
        new Date(t0.getTime() + 1000),
      ),
    );
    let calls = 0;
    const send = async () =>
      ++calls === 1 ? { error: "connection refused", durationMs: 3 } : { statusCode: 204, durationMs: 4 };
    await dispatchDueEvents({ now: new Date(t0.getTime() + 500), appIds: [app.id], send });
    await dispatchDueEvents({ now: new Date(t0.getTime() + 10_000), appIds: [app.id], send });
    const log = await listWebhookDeliveries({ appId: app.id, companyId: company.id });
    expect(log.app).toMatchObject({ id: app.id, name: app.name });
    expect(log.events.map((e) => e.id)).toEqual([second, first]);
    const [uninstall, install] = log.events;
    expect(install).toMatchObject({
      type: "INSTALL",
      status: "pending",
      attempts: 1,
      totalAttempts: 1,
      lastError: "connection refused",
    });
    expect(install?.nextAttemptAt).toBeInstanceOf(Date);
    expect(uninstall).toMatchObject({ type: "UNINSTALL", status: "delivered", lastStatus: 204, nextAttemptAt: null });
    expect(JSON.parse(uninstall!.body)).toEqual({ type: "UNINSTALL", webhookId: second });
    expect(uninstall?.recentAttempts).toMatchObject([{ attempt: 1, statusCode: 204, error: null, durationMs: 4 }]);

    const other = await makeAgency({ locations: 0 });
    await expect(listWebhookDeliveries({ appId: app.id, companyId: other.company.id })).rejects.toMatchObject({
      kind: "not_found",
    });
  });
});
