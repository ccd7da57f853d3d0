import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { db, type Tx } from "@/lib/db/client";
import { answeredOnce, claimedOnce, personRequest } from "@/lib/idempotency/keys";
import {
  newWebhookSecret,
  PREVIOUS_WEBHOOK_SECRET_GRACE_MS,
  webhookSecretColumns,
} from "@/lib/webhooks/webhook-secret";
import { loadOwnApp } from "./registry";

export interface RotatedWebhookSecret {
  /** The new `whsec_…` secret, shown this once. */
  webhookSecret: string;
  webhookSecretHint: string;
  /** Until when the secret it replaces keeps signing beside it (null when there was none). */
  previousSignsUntil: Date | null;
}

/**
 * A new webhook secret, shown once. Deliveries are signed with both (two `v1,` signatures) for
 * 24 hours from `now`, so the receiver can switch to the new one without losing an event. Sent
 * again with the same idempotency key, it answers the same secret and rotates nothing.
 */
export async function rotateWebhookSecret(
  appId: string,
  actor?: Actor,
  now = new Date(),
  options: { idempotencyKey?: string } = {},
): Promise<RotatedWebhookSecret> {
  const request = personRequest(actor?.id, options.idempotencyKey, { operation: "app.rotateWebhookSecret", appId });
  return answeredOnce(
    () => db().$transaction((tx) => claimedOnce(tx, request, now, () => rotateWebhookSecretIn(tx, appId, actor, now))),
    (stored) => stored as RotatedWebhookSecret,
  );
}

/** The rotation's transaction: the current secret becomes the previous one, signing 24 hours more. */
async function rotateWebhookSecretIn(
  tx: Tx,
  appId: string,
  actor: Actor | undefined,
  now: Date,
): Promise<RotatedWebhookSecret> {
  const webhookSecret = newWebhookSecret();
  const columns = webhookSecretColumns(webhookSecret);
  const app = await loadOwnApp(tx, appId, actor);
  const current = await tx.app.findUniqueOrThrow({ where: { id: appId }, select: { webhookSecretEncrypted: true } });
  const previousSignsUntil = current.webhookSecretEncrypted
    ? new Date(now.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS)
    : null;
  await tx.app.update({
    where: { id: appId },
    data: {
      ...columns,
      previousWebhookSecretEncrypted: current.webhookSecretEncrypted,
      previousWebhookSecretExpiresAt: previousSignsUntil,
    },
  });
  await recordAudit(tx, {
    companyId: app.companyId,
    actorUserId: actor?.id,
    action: "app_webhook_secret_rotated",
    targetId: appId,
  });
  return { webhookSecret, webhookSecretHint: columns.webhookSecretHint, previousSignsUntil };
}
