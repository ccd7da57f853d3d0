import { db } from "@/lib/db/client";
import { dispatchDueEvents } from "@/lib/webhooks/dispatcher";
import { enqueueWebhookEvents } from "@/lib/webhooks/outbox";
import { uniqueSuffix } from "./fixtures";
import type { ReceivedWebhook, WebhookReceiver } from "./webhook-receiver";

/**
 * An App row written directly, not through createApp: no webhook secret yet (as an app made
 * before them) and a client secret nobody knows. For tests of delivery, not of the app registry.
 */
export function insertAppRow(
  companyId: string,
  options: { name: string; webhookUrl: string | null; clientIdPrefix?: string; scopes?: string[] },
) {
  const suffix = uniqueSuffix();
  return db().app.create({
    data: {
      companyId,
      name: `${options.name} ${suffix}`,
      clientId: `${options.clientIdPrefix ?? "client"}-${suffix}`,
      clientSecretHash: "x",
      clientSecretHint: "xxxx",
      redirectUris: ["https://app.example/cb"],
      scopes: options.scopes ?? [],
      installSetting: "everyone",
      webhookUrl: options.webhookUrl,
    },
  });
}

/** One INSTALL event of `appId` to `targetUrl`, due at `dueAt`; its id. */
export async function enqueueInstallEvent(
  appId: string,
  dueAt: Date,
  targetUrl = "https://hooks.example.test/in",
): Promise<string> {
  const [id] = await db().$transaction((tx) =>
    enqueueWebhookEvents(tx, [{ appId, type: "INSTALL", targetUrl, payload: { type: "INSTALL", appId } }], dueAt),
  );
  if (!id) throw new Error("no event enqueued");
  return id;
}

/** Enqueues one INSTALL event of `appId` to `receiver`, dispatches it at `now`, and returns it as received. */
export async function deliverOne(receiver: WebhookReceiver, appId: string, now: Date): Promise<ReceivedWebhook> {
  const id = await enqueueInstallEvent(appId, now, receiver.url);
  await dispatchDueEvents({ now, appIds: [appId], allowPrivate: true });
  const webhook = receiver.received.find((w) => w.headers["webhook-id"] === id);
  if (!webhook) throw new Error("not delivered");
  return webhook;
}
