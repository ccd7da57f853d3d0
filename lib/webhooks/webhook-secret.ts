import { randomBytes } from "node:crypto";
import { decrypt, encrypt, lastFour } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";

/**
 * The app's Standard Webhooks secret, which signs `v1,<HMAC-SHA256>`: `whsec_<base64 of 24 random
 * bytes>`, one per app, shown once (at creation and at each rotation). The server signs every
 * delivery with it, so it is kept encrypted (AES-GCM under a key derived from SERVER_SECRET), not
 * hashed, with its last four characters as a display hint. A rotation keeps the previous secret
 * signing too for 24 hours, so receivers can switch without losing a delivery.
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** How long the secret before a rotation keeps signing beside the new one. */
export const PREVIOUS_WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;
const ENCRYPTION_PURPOSE = "webhook-secret";

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

export function sealWebhookSecret(secret: string): string {
  return encrypt(secret, ENCRYPTION_PURPOSE);
}

export function openWebhookSecret(sealed: string): string {
  return decrypt(sealed, ENCRYPTION_PURPOSE);
}

/** The columns of App that a new secret sets. */
export function webhookSecretColumns(secret: string): { webhookSecretEncrypted: string; webhookSecretHint: string } {
  return { webhookSecretEncrypted: sealWebhookSecret(secret), webhookSecretHint: lastFour(secret) };
}

/**
 * The secrets that sign an app's deliveries at `now`: the current one first, then the one before
 * the last rotation while it is still within its 24 hours. An app made before webhook secrets
 * existed gets one here, at its first delivery (never shown: its page offers Rotate to reveal one).
 */
export async function webhookSecretsForSigning(appId: string, now = new Date()): Promise<string[]> {
  let app = await db().app.findUnique({ where: { id: appId }, select: secretColumns });
  if (!app) return [];
  if (!app.webhookSecretEncrypted) {
    // Only one instance's secret wins (the conditional update); everyone then reads the winner's.
    await db().app.updateMany({
      where: { id: appId, webhookSecretEncrypted: null },
      data: webhookSecretColumns(newWebhookSecret()),
    });
    app = await db().app.findUnique({ where: { id: appId }, select: secretColumns });
    if (!app?.webhookSecretEncrypted) return [];
  }
  const secrets = [openWebhookSecret(app.webhookSecretEncrypted)];
  if (
    app.previousWebhookSecretEncrypted &&
    app.previousWebhookSecretExpiresAt &&
    app.previousWebhookSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(openWebhookSecret(app.previousWebhookSecretEncrypted));
  }
  return secrets;
}

const secretColumns = {
  webhookSecretEncrypted: true,
  previousWebhookSecretEncrypted: true,
  previousWebhookSecretExpiresAt: true,
} as const;

export interface WebhookSecretStatus {
  /** Last four characters of the current secret; null while the app has none yet. */
  hint: string | null;
  /** Until when the secret before the last rotation still signs; null when none does (at `now`). */
  previousSignsUntil: Date | null;
}

export async function webhookSecretStatus(appId: string, now = new Date()): Promise<WebhookSecretStatus> {
  const app = await db().app.findUnique({
    where: { id: appId },
    select: { webhookSecretHint: true, previousWebhookSecretExpiresAt: true },
  });
  const until = app?.previousWebhookSecretExpiresAt ?? null;
  return {
    hint: app?.webhookSecretHint ?? null,
    previousSignsUntil: until && until.getTime() > now.getTime() ? until : null,
  };
}
