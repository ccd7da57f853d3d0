/**
 * Retry policy of webhook deliveries: any non-2xx answer or network error is retried with
 * exponential backoff and jitter, for at least 24 hours from the start of the retry series; then
 * the event is `failed` (and can be redelivered by hand).
 */

export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Delay after the n-th failed attempt; the last entry repeats. */
export const BACKOFF_SCHEDULE_MS = [
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
] as const;
const MAX_DELAY_MS = 8 * HOUR;
/** Up to this fraction is added at random, so a receiver that comes back is not hit by a herd. */
const JITTER = 0.1;

/**
 * The delay after `failedAttempts` failures (1 = after the first attempt failed), jitter included.
 * `firstRetryMs` replaces the schedule's first step (WEBHOOK_FIRST_RETRY_SECONDS); the rest stays.
 */
export function retryDelayMs(
  failedAttempts: number,
  random: () => number = Math.random,
  firstRetryMs: number = BACKOFF_SCHEDULE_MS[0],
): number {
  const index = Math.min(Math.max(failedAttempts, 1), BACKOFF_SCHEDULE_MS.length) - 1;
  const base = index === 0 ? firstRetryMs : (BACKOFF_SCHEDULE_MS[index] ?? MAX_DELAY_MS);
  return Math.round(base * (1 + JITTER * random()));
}

/**
 * When to try again after a failed attempt, or null to give up: we give up only on an attempt made
 * 24 hours or more after the retry series began, so retries always cover at least 24 hours.
 * A receiver's Retry-After is honoured when it asks for longer than the schedule (up to 8 hours).
 */
export function nextAttemptAfterFailure(args: {
  failedAttempts: number;
  retryStartedAt: Date;
  attemptedAt: Date;
  retryAfterMs?: number;
  random?: () => number;
  /** The first step of the schedule; 30 s unless WEBHOOK_FIRST_RETRY_SECONDS says otherwise. */
  firstRetryMs?: number;
}): Date | null {
  const { failedAttempts, retryStartedAt, attemptedAt } = args;
  if (attemptedAt.getTime() - retryStartedAt.getTime() >= RETRY_WINDOW_MS) return null;
  const delay = Math.max(
    retryDelayMs(failedAttempts, args.random, args.firstRetryMs),
    Math.min(args.retryAfterMs ?? 0, MAX_DELAY_MS),
  );
  return new Date(attemptedAt.getTime() + delay);
}
