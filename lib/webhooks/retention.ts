/**
 * How long webhook events (the outbox rows, with their delivery logs) are kept. SPEC.md: "events
 * are kept at least 30 days", so an app that was down for longer than the retries catches up with
 * GET /webhooks/events. The pruner (lib/maintenance/prune.ts) keeps every event younger than
 * this, whatever its status, and deletes older delivered and failed ones with their delivery logs.
 */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/** Events created before this moment may be pruned; none after it. */
export function webhookEventRetentionCutoff(now: Date): Date {
  return new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_DAYS * 24 * 3_600_000);
}
