import { afterAll, beforeAll } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

/**
 * A webhook receiver for the enclosing describe block (or file): started before its tests, handed
 * to `started`, and stopped after them. Vitest only (e2e specs start theirs themselves).
 */
export function withWebhookReceiver(started: (receiver: WebhookReceiver) => void): void {
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    started(receiver);
  });
  afterAll(async () => {
    await receiver?.stop();
  });
}
