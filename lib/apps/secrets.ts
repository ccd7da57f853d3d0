import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { hashSecret, lastFour } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import {
  newWebhookSecret,
  PREVIOUS_WEBHOOK_SECRET_GRACE_MS,
  webhookSecretColumns,
} from "@/lib/webhooks/webhook-secret";
import { loadOwnApp, newClientSecret } from "./registry";

/** An app's credentials after creation: a new client secret, a new webhook secret (each shown once). */

/** A new client secret, shown once; the old one stops working at once. */
export async function regenerateClientSecret(
  appId: string,
  actor?: Actor,
): Promise<{ clientSecret: string; clientSecretHint: string }> {
  const clientSecret = newClientSecret();
  await db().$transaction(async (tx) => {
    const app = await loadOwnApp(tx, appId, actor);
    await tx.app.update({
      where: { id: appId },
      data: { clientSecretHash: hashSecret(clientSecret), clientSecretHint: lastFour(clientSecret) },
    });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_secret_regenerated",
      targetId: appId,
    });
  });
  return { clientSecret, clientSecretHint: lastFour(clientSecret) };
}

export interface RotatedWebhookSecret {
  /** The new `whsec_…` secret, shown this once. */
  webhookSecret: string;
  webhookSecretHint: string;
  /** Until when the secret it replaces keeps signing beside it (null when there was none). */
  previousSignsUntil: Date | null;
}

/**
 * A new webhook secret, shown once. Deliveries are signed with both (two `v1,` signatures) for
 * 24 hours from `now`, so the receiver can switch to the new one without losing an event.
 */
export async function rotateWebhookSecret(
  appId: string,
  actor?: Actor,
  now = new Date(),
): Promise<RotatedWebhookSecret> {
  const webhookSecret = newWebhookSecret();
  const columns = webhookSecretColumns(webhookSecret);
  const previousSignsUntil = await db().$transaction(async (tx) => {
    const app = await loadOwnApp(tx, appId, actor);
    const current = await tx.app.findUniqueOrThrow({
      where: { id: appId },
      select: { webhookSecretEncrypted: true },
    });
    const until = current.webhookSecretEncrypted ? new Date(now.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS) : null;
    await tx.app.update({
      where: { id: appId },
      data: {
        ...columns,
        previousWebhookSecretEncrypted: current.webhookSecretEncrypted,
        previousWebhookSecretExpiresAt: until,
      },
    });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_webhook_secret_rotated",
      targetId: appId,
    });
    return until;
  });
  return { webhookSecret, webhookSecretHint: columns.webhookSecretHint, previousSignsUntil };
}
