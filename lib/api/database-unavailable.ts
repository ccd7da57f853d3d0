import { isDatabaseUnavailable } from "@/lib/log-database-error";
import { HttpError } from "./http-error";

/**
 * A request that failed because the database cannot be used for a moment (a failover: the primary
 * stopped and the standby is not promoted yet; a restart) is answered 503 `temporarily_unavailable`
 * with `Retry-After`, not 500 `server_error`: the client should retry, and nothing is wrong with
 * the code. Which errors those are is lib/log-database-error.ts's `isDatabaseUnavailable`; the
 * cause goes to the log (codes only), never to the body.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

export function databaseUnavailableError(error: unknown): HttpError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return new HttpError(
    "temporarily_unavailable",
    `The service cannot reach its database for a moment (a failover or a restart). Retry after ${DATABASE_RETRY_AFTER_SECONDS} second.`,
    { headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) }, detail: "database unavailable" },
  );
}
