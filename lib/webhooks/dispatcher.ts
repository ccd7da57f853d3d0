import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { invalid, notFound } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { describeError, log } from "@/lib/log";
import { nudgeDispatcher, onNudge } from "./nudge";
import { DELIVERY_TIMEOUT_MS, type SendWebhookInput, type SendWebhookResult, sendWebhook } from "./sender";
import { webhookSignatureHeaders } from "./signer";
import { webhookSigningKeys } from "./signing-key";
import { webhookSecretsForSigning } from "./webhook-secret";

/**
 * The webhook dispatcher: delivers the outbox (WebhookEvent rows) at least once.
 *
 * Claiming is one statement, `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)`, that sets a
 * lease (`lockedUntil`) and a claim token: instances sharing PostgreSQL never claim the same row
 * at once, and a row claimed by an instance that died (SIGKILL, crash, lost network) becomes due
 * again when its lease ends. An attempt records its outcome only while its claim token still
 * holds. Every attempt leaves a WebhookDelivery row. Retries: any non-2xx answer or network error,
 * with exponential backoff and jitter, for at least 24 hours from the start of the retry series;
 * then the event is `failed` (and can be redelivered by hand).
 */

/** Longer than an attempt can take (10 s timeout plus database time), so a live claim never lapses. */
export const LEASE_MS = 60_000;
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

/** The delay after `failedAttempts` failures (1 = after the first attempt failed), jitter included. */
export function retryDelayMs(failedAttempts: number, random: () => number = Math.random): number {
  const index = Math.min(Math.max(failedAttempts, 1), BACKOFF_SCHEDULE_MS.length) - 1;
  const base = BACKOFF_SCHEDULE_MS[index] ?? MAX_DELAY_MS;
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
}): Date | null {
  const { failedAttempts, retryStartedAt, attemptedAt } = args;
  if (attemptedAt.getTime() - retryStartedAt.getTime() >= RETRY_WINDOW_MS) return null;
  const delay = Math.max(retryDelayMs(failedAttempts, args.random), Math.min(args.retryAfterMs ?? 0, MAX_DELAY_MS));
  return new Date(attemptedAt.getTime() + delay);
}

export interface ClaimedEvent {
  id: string;
  appId: string;
  type: string;
  /** The payload as compact JSON in the order stored (json column), sent and signed byte for byte. */
  body: string;
  targetUrl: string;
  /** Attempts already made in this retry series. */
  attempts: number;
  retryStartedAt: Date;
  claimToken: string;
}

export interface ClaimOptions {
  now?: Date;
  limit?: number;
  leaseMs?: number;
  /** Only events of these apps (tests share one database; production claims everything). */
  appIds?: string[];
}

/** Claims up to `limit` due events for this instance (see the module comment). */
export async function claimDueEvents(options: ClaimOptions = {}): Promise<ClaimedEvent[]> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 10;
  const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? LEASE_MS));
  const claimToken = randomUUID();
  const onlyApps =
    options.appIds === undefined
      ? Prisma.empty
      : options.appIds.length === 0
        ? Prisma.sql`AND false`
        : Prisma.sql`AND "appId" IN (${Prisma.join(options.appIds)})`;
  const rows = await db().$queryRaw<
    {
      id: string;
      appId: string;
      type: string;
      body: string;
      targetUrl: string;
      attempts: number;
      retryStartedAt: Date;
    }[]
  >`
    UPDATE "WebhookEvent"
    SET "lockedUntil" = ${leaseUntil}, "claimToken" = ${claimToken}
    WHERE "id" IN (
      SELECT "id" FROM "WebhookEvent"
      WHERE "status" = 'pending'
        AND "nextAttemptAt" <= ${now}
        AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${now})
        ${onlyApps}
      ORDER BY "nextAttemptAt"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "appId", "type", "payload"::text AS "body", "targetUrl", "attempts", "retryStartedAt"`;
  // Compact JSON (SPEC.md: JSON.stringify(JSON.parse(body)) === body), keys in the order written;
  // the same string is signed and sent.
  return rows.map((row) => ({
    ...row,
    body: JSON.stringify(JSON.parse(row.body)),
    attempts: Number(row.attempts),
    claimToken,
  }));
}

export type AttemptOutcome = "delivered" | "retrying" | "failed" | "claim_lost";

export interface DeliverOptions {
  /** When the attempt starts (the rules' clock); defaults to the wall clock. */
  now?: Date;
  timeoutMs?: number;
  allowPrivate?: boolean;
  random?: () => number;
  /** The HTTP client (tests may replace it). */
  send?: (input: SendWebhookInput) => Promise<SendWebhookResult>;
}

/** Makes one attempt for a claimed event and records it. Never throws for a receiver's failure. */
export async function deliverClaimedEvent(event: ClaimedEvent, options: DeliverOptions = {}): Promise<AttemptOutcome> {
  const attemptedAt = options.now ?? new Date();
  const attempt = event.attempts + 1;
  let result: SendWebhookResult;
  try {
    const [keys, secrets] = await Promise.all([
      webhookSigningKeys(attemptedAt),
      webhookSecretsForSigning(event.appId, attemptedAt),
    ]);
    // The signature's timestamp is the real moment of sending: receivers compare it with their clock.
    const headers = webhookSignatureHeaders(
      { id: event.id, timestamp: Math.floor(Date.now() / 1000), body: event.body },
      { secrets, keys: keys.signing.map((key) => key.privateKey), platformKey: keys.platform.privateKey },
    );
    result = await (options.send ?? sendWebhook)({
      url: event.targetUrl,
      body: event.body,
      headers,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      allowPrivate: options.allowPrivate,
    });
  } catch (error) {
    // Our side failed (key, database); the attempt still counts and is retried like any other.
    log.error("webhook attempt failed before sending", { eventId: event.id, cause: describeError(error) });
    result = { error: "internal error before sending", durationMs: 0 };
  }

  const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  const finishedAt = new Date(attemptedAt.getTime() + result.durationMs);
  const next = ok
    ? null
    : nextAttemptAfterFailure({
        failedAttempts: attempt,
        retryStartedAt: event.retryStartedAt,
        attemptedAt: finishedAt,
        retryAfterMs: result.retryAfterMs,
        random: options.random,
      });
  const status = ok ? "delivered" : next ? "pending" : "failed";
  const error = result.error?.slice(0, 500) ?? null;

  const [, updated] = await db().$transaction([
    db().webhookDelivery.create({
      data: {
        eventId: event.id,
        attempt,
        attemptedAt,
        statusCode: result.statusCode ?? null,
        error,
        durationMs: result.durationMs,
      },
    }),
    db().webhookEvent.updateMany({
      where: { id: event.id, claimToken: event.claimToken },
      data: {
        status,
        attempts: attempt,
        lastAttemptAt: attemptedAt,
        lastStatus: result.statusCode ?? null,
        lastError: error,
        deliveredAt: ok ? finishedAt : null,
        nextAttemptAt: next ?? finishedAt,
        lockedUntil: null,
        claimToken: null,
      },
    }),
  ]);
  const outcome: AttemptOutcome = updated.count === 0 ? "claim_lost" : ok ? "delivered" : next ? "retrying" : "failed";
  const fields = { eventId: event.id, appId: event.appId, attempt, statusCode: result.statusCode, outcome };
  if (outcome === "failed") log.warn("webhook given up after the retry window", fields);
  else if (outcome === "claim_lost") log.warn("webhook attempt finished after its claim was taken over", fields);
  else log.info("webhook attempt", fields);
  return outcome;
}

export interface DispatchSummary {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
  claimLost: number;
}

/** One round: claim due events and attempt them all (in parallel), waiting for every attempt. */
export async function dispatchDueEvents(
  options: ClaimOptions & Omit<DeliverOptions, "now"> = {},
): Promise<DispatchSummary> {
  const now = options.now ?? new Date();
  const events = await claimDueEvents({ ...options, now });
  const outcomes = await Promise.all(events.map((event) => deliverSafely(event, { ...options, now })));
  return {
    claimed: events.length,
    delivered: outcomes.filter((o) => o === "delivered").length,
    retrying: outcomes.filter((o) => o === "retrying").length,
    failed: outcomes.filter((o) => o === "failed").length,
    claimLost: outcomes.filter((o) => o === "claim_lost").length,
  };
}

async function deliverSafely(event: ClaimedEvent, options: DeliverOptions): Promise<AttemptOutcome | "error"> {
  try {
    return await deliverClaimedEvent(event, options);
  } catch (error) {
    // Could not record the attempt: the lease lapses and the event is attempted again. Nothing lost.
    log.error("webhook attempt could not be recorded", { eventId: event.id, cause: describeError(error) });
    return "error";
  }
}

/**
 * Puts a delivered or failed event (or a pending one) back in the queue now, as a new retry
 * series with the app's current webhook URL. Only for the app's own agency (`appCompanyId`).
 */
export async function redeliverWebhookEvent(eventId: string, appCompanyId: string, now = new Date()): Promise<void> {
  const event = await db().webhookEvent.findFirst({
    where: { id: eventId, app: { companyId: appCompanyId } },
    select: { id: true, appId: true, app: { select: { webhookUrl: true } } },
  });
  if (!event) throw notFound("That webhook event does not exist.");
  if (!event.app.webhookUrl) throw invalid("This app has no webhook URL. Add one before redelivering.");
  await db().webhookEvent.update({
    where: { id: event.id },
    data: {
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      retryStartedAt: now,
      lockedUntil: null,
      claimToken: null,
      deliveredAt: null,
      targetUrl: event.app.webhookUrl,
    },
  });
  log.info("webhook redelivery requested", { eventId: event.id, appId: event.appId });
  nudgeDispatcher();
}

// ---------------------------------------------------------------------------------------------
// The loop started with the server (instrumentation.ts).

export interface DispatcherOptions {
  /** How often to look for due events. */
  intervalMs?: number;
  /** Attempts in flight at once on this instance. */
  concurrency?: number;
  /** Only these apps' events (tests sharing a database); production delivers every app's. */
  appIds?: string[];
  /** Defaults to WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
  /** How long a claim lasts; defaults to WEBHOOK_LEASE_SECONDS (60 s). */
  leaseMs?: number;
}

interface LoopState {
  stopped: boolean;
  timer?: NodeJS.Timeout;
  /** The claim step running now; it never overlaps itself. */
  ticking?: Promise<void>;
  again: boolean;
  inFlight: Set<Promise<unknown>>;
  consecutiveErrors: number;
  unsubscribe: () => void;
  options: DispatcherOptions & { intervalMs: number; concurrency: number; leaseMs: number };
}

const holder = globalThis as typeof globalThis & { __webhookDispatcher?: LoopState };

export function isDispatcherRunning(): boolean {
  return holder.__webhookDispatcher !== undefined && !holder.__webhookDispatcher.stopped;
}

/** Starts polling the outbox on this instance (idempotent). */
export function startDispatcher(options: DispatcherOptions = {}): void {
  if (isDispatcherRunning()) return;
  const state: LoopState = {
    stopped: false,
    again: false,
    inFlight: new Set(),
    consecutiveErrors: 0,
    unsubscribe: () => {},
    options: {
      ...options,
      intervalMs: options.intervalMs ?? 1000,
      concurrency: options.concurrency ?? 10,
      leaseMs: options.leaseMs ?? env().WEBHOOK_LEASE_SECONDS * 1000,
    },
  };
  holder.__webhookDispatcher = state;
  state.unsubscribe = onNudge(() => wake(state));
  log.info("webhook dispatcher started", { intervalMs: state.options.intervalMs });
  schedule(state, 0);
}

/** Stops polling and waits for the attempts in flight to be recorded. */
export async function stopDispatcher(): Promise<void> {
  const state = holder.__webhookDispatcher;
  if (!state) return;
  state.stopped = true;
  state.unsubscribe();
  clearTimeout(state.timer);
  await state.ticking?.catch(() => {}); // its failure is logged by tick()
  await Promise.allSettled([...state.inFlight]);
  if (holder.__webhookDispatcher === state) holder.__webhookDispatcher = undefined;
  log.info("webhook dispatcher stopped");
}

function schedule(state: LoopState, delayMs: number): void {
  if (state.stopped) return;
  clearTimeout(state.timer);
  state.timer = setTimeout(() => void tick(state), delayMs);
  state.timer.unref?.();
}

function wake(state: LoopState): void {
  if (state.stopped) return;
  if (state.ticking) state.again = true;
  else schedule(state, 0);
}

async function tick(state: LoopState): Promise<void> {
  if (state.stopped || state.ticking) return;
  let claimedFull = false;
  state.ticking = (async () => {
    const free = state.options.concurrency - state.inFlight.size;
    if (free <= 0) return;
    const events = await claimDueEvents({ limit: free, appIds: state.options.appIds, leaseMs: state.options.leaseMs });
    claimedFull = events.length === free;
    for (const event of events) {
      const attempt = deliverSafely(event, { allowPrivate: state.options.allowPrivate }).finally(() => {
        state.inFlight.delete(attempt);
        wake(state); // a slot is free and more may be waiting (wake-ups coalesce)
      });
      state.inFlight.add(attempt);
    }
  })();
  try {
    await state.ticking;
    state.consecutiveErrors = 0;
  } catch (error) {
    state.consecutiveErrors += 1;
    // Typically the database is unreachable; back off so the log is not flooded.
    if (state.consecutiveErrors === 1 || state.consecutiveErrors % 30 === 0) {
      log.error("webhook dispatcher could not claim events", {
        cause: describeError(error),
        consecutiveErrors: state.consecutiveErrors,
      });
    }
  } finally {
    state.ticking = undefined;
  }
  const again = state.again || claimedFull;
  state.again = false;
  const backoff = Math.min(state.options.intervalMs * 2 ** Math.min(state.consecutiveErrors, 5), 30_000);
  schedule(state, again && state.consecutiveErrors === 0 ? 0 : backoff);
}
