import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { enqueueInstallEvent, insertAppRow } from "@/lib/testing/webhook-delivery";
import { webhookBacklog } from "./backlog";

const MINUTE = 60_000;

describe("the webhook backlog the metrics read", () => {
  it("counts every pending event, and how long the longest-waiting deliverable one has been due", async () => {
    const { company } = await makeAgency({ locations: 1 });
    const app = await insertAppRow(company.id, { name: "Backlogged", webhookUrl: "https://hooks.example.test/in" });
    const disabled = await insertAppRow(company.id, { name: "Disabled", webhookUrl: "https://hooks.example.test/in" });
    const now = new Date();
    const appIds = [app.id, disabled.id];
    expect(await webhookBacklog({ now, appIds })).toEqual({ pending: 0, oldestDueSeconds: 0 });

    await enqueueInstallEvent(app.id, new Date(now.getTime() - 90_000)); // due 90 s ago
    await enqueueInstallEvent(app.id, new Date(now.getTime() - 30_000)); // due 30 s ago
    const waiting = await enqueueInstallEvent(app.id, now);
    // Waiting out its backoff: pending, not late.
    await db().webhookEvent.update({
      where: { id: waiting },
      data: { nextAttemptAt: new Date(now.getTime() + 5 * MINUTE) },
    });
    const delivered = await enqueueInstallEvent(app.id, new Date(now.getTime() - 60 * MINUTE));
    await db().webhookEvent.update({ where: { id: delivered }, data: { status: "delivered", deliveredAt: now } });
    // A disabled endpoint's event waits for Enable: pending, but not the dispatchers' delay.
    await enqueueInstallEvent(disabled.id, new Date(now.getTime() - 30 * MINUTE));
    await db().app.update({ where: { id: disabled.id }, data: { webhookDisabledAt: now } });

    const backlog = await webhookBacklog({ now, appIds });
    expect(backlog.pending).toBe(4);
    expect(backlog.oldestDueSeconds).toBeCloseTo(90, 3);
  });
});
