import { clientAddress } from "@/lib/client-address";
import { currentTime } from "@/lib/clock";
import { env } from "@/lib/env";
import { countIntegrationRequest, serviceMetrics } from "@/lib/metrics/metrics";
import type { Principal } from "@/lib/tokens/principal";
import { outcomeOf, type UsageSubject, usageCounter } from "@/lib/usage/counter";
import type { HttpError } from "./http-error";

/**
 * Where the HTTP frame counts API usage (lib/usage/counter.ts): `authenticateBearer` notes whose
 * token the request carried (also when a known integration's token is refused), `errorResponse`
 * notes the code and description of a refusal, and `apiRoute` counts the final status once the
 * answer is made. The request's path only updates a Map; the counter writes in batches. A private
 * integration's request is also counted in the metrics (lib/metrics), when they are on.
 */

interface Caller {
  subject: UsageSubject;
  refusal?: { errorCode: string; description: string };
}

/**
 * Where a request's caller is kept: on the request itself, under a symbol nothing else reads (a
 * WeakMap's entries cost every garbage collection, and the API's hot path makes one per request).
 */
const CALLER = Symbol("usage caller");
type WithCaller = Request & { [CALLER]?: Caller };

export function usageSubjectOf(principal: Principal): UsageSubject | undefined {
  if (principal.integrationId) return { type: "integration", id: principal.integrationId };
  if (principal.installationId) return { type: "installation", id: principal.installationId };
  return undefined;
}

/** The request was made with this caller's token (kept for the usage counts, and for the metrics' integrations). */
export function noteCaller(request: Request, subject: UsageSubject | undefined): void {
  if (!subject) return;
  if (env().API_USAGE_COUNTING === "on" || (subject.type === "integration" && serviceMetrics() !== undefined)) {
    (request as WithCaller)[CALLER] = { subject };
  }
}

/** The answer refuses the request with this error (kept for "the last refused request"). */
export function noteRefusal(request: Request | undefined, error: HttpError): void {
  const caller = request && (request as WithCaller)[CALLER];
  if (caller) caller.refusal = { errorCode: error.code, description: error.description };
}

/** Counts the answer of a request whose caller is known; anything else is not counted. */
export function countUsage(request: Request, status: number, at?: Date): void {
  const caller = (request as WithCaller)[CALLER];
  if (!caller) return;
  (request as WithCaller)[CALLER] = undefined;
  const outcome = outcomeOf(status);
  if (!outcome) return;
  if (caller.subject.type === "integration") countIntegrationRequest(outcome);
  if (env().API_USAGE_COUNTING !== "on") return;
  // The clock is read only for an answer that is counted.
  const now = at ?? currentTime();
  if (outcome !== "refused" || caller.subject.type !== "integration") {
    usageCounter().count(caller.subject, outcome, now);
    return;
  }
  usageCounter().count(caller.subject, outcome, now, {
    address: clientAddress(request.headers, env().TRUSTED_PROXY_HOPS),
    endpoint: `${request.method} ${new URL(request.url).pathname}`,
    errorCode: caller.refusal?.errorCode ?? String(status),
    description: caller.refusal?.description ?? "",
  });
}
