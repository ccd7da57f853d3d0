import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { countWebhookDelivery } from "@/lib/metrics/metrics";
import { type Tracing, tracing } from "@/lib/telemetry/tracing";
import { nextAttemptAfterFailure } from "./backoff";
import type { ClaimedEvent } from "./claim";
import { disableIfFailingTooLong } from "./endpoint-health";
import { DELIVERY_TIMEOUT_MS, type SendWebhookInput, type SendWebhookResult, sendWebhook } from "./sender";
import { webhookSignatureHeaders } from "./signer";
import { webhookSigningKeys } from "./signing-key";
import { webhookSecretsForSigning } from "./webhook-secret";

/**
 * One delivery attempt of a claimed event: sign, send, and record it (a WebhookDelivery row for
 * every attempt, and the event's next state while its claim token still holds).
 */

export type AttemptOutcome = "delivered" | "retrying" | "failed" | "claim_lost";

export interface DeliverOptions {
  /** When the attempt starts (the rules' clock); defaults to the wall clock. */
  now?: Date;
  timeoutMs?: number;
  allowPrivate?: boolean;
  random?: () => number;
  /** The HTTP client (tests may replace it). */
  send?: (input: SendWebhookInput) => Promise<SendWebhookResult>;
  /** Defaults to WEBHOOK_DISABLE_AFTER_DAYS. */
  disableAfterDays?: number;
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
    const input: SendWebhookInput = {
      url: event.targetUrl,
      body: event.body,
      headers,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      allowPrivate: options.allowPrivate,
    };
    const send = options.send ?? sendWebhook;
    const traced = tracing();
    result = await (traced === undefined ? send(input) : sendInSpan(send, input, traced));
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
        firstRetryMs: env().WEBHOOK_FIRST_RETRY_SECONDS * 1000,
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
        // Shown on the developer's delivery log only; never logged (it is the receiver's text).
        responseBody: result.responseBody ?? null,
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
  if (!ok && updated.count === 1) await disableIfFailingTooLong(event.appId, attemptedAt, options.disableAfterDays);
  countWebhookDelivery(outcome);
  const fields = { eventId: event.id, appId: event.appId, attempt, statusCode: result.statusCode, outcome };
  if (outcome === "failed") log.warn("webhook given up after the retry window", fields);
  else if (outcome === "claim_lost") log.warn("webhook attempt finished after its claim was taken over", fields);
  else log.info("webhook attempt", fields);
  return outcome;
}

/** The HTTP request of an attempt as a client span (tracing on), with the receiver's status or error. */
function sendInSpan(
  send: (input: SendWebhookInput) => Promise<SendWebhookResult>,
  input: SendWebhookInput,
  traced: Tracing,
): Promise<SendWebhookResult> {
  let host = "";
  try {
    host = new URL(input.url).host;
  } catch {
    // an unreadable URL: the sender refuses it
  }
  return traced.child(
    "POST",
    { "http.request.method": "POST", "server.address": host },
    () => send(input),
    (result) =>
      result.statusCode === undefined
        ? { "error.type": "no_answer" }
        : {
            "http.response.status_code": result.statusCode,
            ...(result.statusCode >= 400 ? { "error.type": String(result.statusCode) } : {}),
          },
  );
}

/** deliverClaimedEvent, logging instead of throwing when the attempt cannot be recorded. */
export async function deliverSafely(event: ClaimedEvent, options: DeliverOptions): Promise<AttemptOutcome | "error"> {
  const traced = tracing();
  if (traced === undefined) return deliverLogged(event, options);
  // A delivery starts a trace of its own (the dispatcher runs outside any request): its database
  // calls and its HTTP request are the span's children.
  const attributes = {
    "webhook.event_id": event.id,
    "webhook.type": event.type,
    "webhook.attempt": event.attempts + 1,
  };
  return traced.root(`webhook ${event.type}`, attributes, async (span) => {
    const outcome = await deliverLogged(event, options);
    span.set({ "webhook.outcome": outcome });
    if (outcome === "error" || outcome === "failed") span.fail(outcome);
    return outcome;
  });
}

async function deliverLogged(event: ClaimedEvent, options: DeliverOptions): Promise<AttemptOutcome | "error"> {
  try {
    return await deliverClaimedEvent(event, options);
  } catch (error) {
    // Could not record the attempt: the lease lapses and the event is attempted again. Nothing lost.
    log.error("webhook attempt could not be recorded", { eventId: event.id, cause: describeError(error) });
    countWebhookDelivery("error");
    return "error";
  }
}
