/**
 * How long webhook events (the outbox rows, with their delivery logs) are kept. SPEC.md: "events
 * are kept at least 30 days", so an app that was down for longer than the retries catches up with
 * GET /webhooks/events. Nothing prunes events yet; whatever prunes them later must keep every
 * event younger than this, whatever its status.
 */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/** Events created before this moment may be pruned; none after it. */
export function webhookEventRetentionCutoff(now: Date): Date {
  return new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_DAYS * 24 * 3_600_000);
}
