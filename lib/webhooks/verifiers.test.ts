import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { rotateWebhookSecret } from "@/lib/apps/webhook-secret-rotation";
import { db } from "@/lib/db/client";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency } from "@/lib/testing/fixtures";
import { install, makeApp } from "@/lib/testing/oauth";
import { deliverOne, insertAppRow } from "@/lib/testing/webhook-delivery";
import { installPayloadFields } from "@/lib/testing/webhook-payloads";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { ghlSignatureVerifies, plainHeaders, sdkOutcome } from "@/lib/testing/webhook-verifiers";
import { dispatchDueEvents } from "./dispatcher";
import { PREVIOUS_WEBHOOK_SECRET_GRACE_MS, webhookSecretStatus, webhookSecretsForSigning } from "./webhook-secret";

/**
 * The webhooks verify with the libraries app developers already use, over real HTTP.
 * A real receiver gets real deliveries; `standardwebhooks` checks `v1` under the secret `createApp`
 * returned, node:crypto checks `x-ghl-signature` under the PEM the route serves, and the platform's
 * SDK (its WebhookManager middleware, configured with our client_id and PEM) accepts the INSTALL.
 */

let receiver: WebhookReceiver;
let pem: string;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  pem = (await apiClient(apiRoutes).get("/.well-known/webhook-public-key.pem")).text;
});
afterAll(async () => {
  await receiver.stop();
});

describe("an INSTALL delivered over HTTP", () => {
  it("verifies with standardwebhooks (v1), node:crypto (x-ghl-signature) and the platform SDK", async () => {
    const { company, owner, locations } = await makeAgency({ locations: 2 });
    const created = await makeApp(company.id, { webhookUrl: receiver.url });
    expect(created.app.clientId.split("-")[0]).toBe(created.app.id);
    const now = new Date();
    await install(owner, created.app.clientId, { level: "agency", locationIds: locations.map((l) => l.id) }, {}, now);
    await dispatchDueEvents({ now, appIds: [created.app.id], allowPrivate: true });

    const ours = receiver.received.filter((w) => w.body.includes(created.app.id));
    expect(ours).toHaveLength(2);
    for (const webhook of ours) {
      // Compact JSON, in SPEC.md's field order.
      expect(JSON.stringify(JSON.parse(webhook.body))).toBe(webhook.body);
      expect(Object.keys(JSON.parse(webhook.body))).toEqual(installPayloadFields);

      const event = new Webhook(created.webhookSecret).verify(webhook.body, plainHeaders(webhook));
      expect(event).toMatchObject({ type: "INSTALL", appId: created.app.id, webhookId: webhook.headers["webhook-id"] });
      // One v1 (one secret); v1a: one per platform key signing (two during a webhook-key:rotate
      // overlap, which another test file may have started on the shared PostgreSQL database).
      expect(
        String(webhook.headers["webhook-signature"])
          .split(" ")
          .map((s) => s.split(",")[0])
          .filter((kind) => kind !== "v1a"),
      ).toEqual(["v1"]);
      expect(ghlSignatureVerifies(webhook, pem)).toBe(true);
      expect(await sdkOutcome(webhook, created.app.clientId, pem)).toEqual({
        passed: undefined,
        isSignatureValid: true,
        skipped: false,
      });

      // Anything changed, and they all say no.
      const tampered = { ...webhook, body: webhook.body.replace('"INSTALL"', '"UNINSTALL"') };
      expect(() => new Webhook(created.webhookSecret).verify(tampered.body, plainHeaders(tampered))).toThrow();
      expect(ghlSignatureVerifies(tampered, pem)).toBe(false);
      expect((await sdkOutcome(tampered, created.app.clientId, pem)).isSignatureValid).toBe(false);
      const other = await makeApp(company.id);
      expect(() => new Webhook(other.webhookSecret).verify(webhook.body, plainHeaders(webhook))).toThrow();
    }
    expect(ours.map((w) => JSON.parse(w.body).locationId).sort()).toEqual(locations.map((l) => l.id).sort());
  });
});

describe("rotating the webhook secret", () => {
  it("signs with both secrets for 24 hours, then with the new one only", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const created = await makeApp(company.id, { webhookUrl: receiver.url });
    const t0 = new Date();
    const rotated = await rotateWebhookSecret(created.app.id, owner, t0);
    expect(rotated.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated.webhookSecret).not.toBe(created.webhookSecret);
    expect(rotated.previousSignsUntil).toEqual(new Date(t0.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS));
    expect(await webhookSecretStatus(created.app.id, t0)).toEqual({
      hint: rotated.webhookSecret.slice(-4),
      previousSignsUntil: rotated.previousSignsUntil,
    });

    // Within the 24 hours: `v1,<new> v1,<old> v1a,<ed25519>`; both secrets verify.
    const during = await deliverOne(
      receiver,
      created.app.id,
      new Date(t0.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS - 1000),
    );
    expect(
      String(during.headers["webhook-signature"])
        .split(" ")
        .map((s) => s.split(",")[0])
        .filter((kind) => kind !== "v1a"),
    ).toEqual(["v1", "v1"]);
    expect(new Webhook(rotated.webhookSecret).verify(during.body, plainHeaders(during))).toBeTruthy();
    expect(new Webhook(created.webhookSecret).verify(during.body, plainHeaders(during))).toBeTruthy();
    expect(ghlSignatureVerifies(during, pem)).toBe(true);

    // From the 24th hour on, the old secret no longer signs.
    const after = new Date(t0.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS);
    const later = await deliverOne(receiver, created.app.id, after);
    expect(new Webhook(rotated.webhookSecret).verify(later.body, plainHeaders(later))).toBeTruthy();
    expect(() => new Webhook(created.webhookSecret).verify(later.body, plainHeaders(later))).toThrow(
      /No matching signature/,
    );
    expect(await webhookSecretStatus(created.app.id, after)).toMatchObject({ previousSignsUntil: null });

    // Only the app's own agency's owners and admins may rotate.
    const other = await makeAgency({ locations: 0 });
    await expect(rotateWebhookSecret(created.app.id, other.owner, t0)).rejects.toMatchObject({ kind: "not_found" });
    const audit = await db().auditLog.findMany({
      where: { targetId: created.app.id, action: "app_webhook_secret_rotated" },
    });
    expect(audit).toHaveLength(1);
  });

  it("a second rotation keeps only the secret just replaced", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const created = await makeApp(company.id, { webhookUrl: receiver.url });
    const t0 = new Date();
    const first = await rotateWebhookSecret(created.app.id, owner, t0);
    const second = await rotateWebhookSecret(created.app.id, owner, t0);
    expect(await webhookSecretsForSigning(created.app.id, t0)).toEqual([second.webhookSecret, first.webhookSecret]);
  });
});

describe("an app made before webhook secrets", () => {
  it("gets one at its first delivery (one, even when instances race), and Rotate reveals a usable one", async () => {
    const { company, owner } = await makeAgency({ locations: 0 });
    const app = await insertAppRow(company.id, { name: "Old app", clientIdPrefix: "legacy", webhookUrl: receiver.url });
    expect(await webhookSecretStatus(app.id)).toEqual({ hint: null, previousSignsUntil: null });
    const now = new Date();
    const raced = await Promise.all([1, 2, 3].map(() => webhookSecretsForSigning(app.id, now)));
    expect(new Set(raced.map((s) => s.join(" "))).size).toBe(1);
    expect(raced[0]).toHaveLength(1);
    expect(raced[0]![0]).toMatch(/^whsec_/);
    const first = await deliverOne(receiver, app.id, now);
    expect(new Webhook(raced[0]![0]!).verify(first.body, plainHeaders(first))).toBeTruthy();

    const rotated = await rotateWebhookSecret(app.id, owner, now);
    const next = await deliverOne(receiver, app.id, now);
    expect(new Webhook(rotated.webhookSecret).verify(next.body, plainHeaders(next))).toBeTruthy();
  });
});
