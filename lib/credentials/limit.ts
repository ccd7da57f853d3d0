import { HttpError } from "@/lib/api/http-error";
import { defaultStore } from "@/lib/api/rate-limit";
import type { CounterStore } from "@/lib/api/rate-limit-store";
import { addressBucket, clientAddress } from "@/lib/client-address";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";

/**
 * SPEC.md: at most 60 calls per hour per client address (an IPv6 one by its /64) to the two
 * `/credentials` endpoints together, every call counted (malformed and refused ones too). A fixed UTC hour, counted in the
 * API's counter store: in PostgreSQL, shared by every instance; in memory on PGlite, which one
 * process owns.
 */
export const CREDENTIALS_CALLS_PER_HOUR = 60;
const HOUR_MS = 3_600_000;

/** Counts one call from `address`; past the limit, throws 429 `rate_limited` with Retry-After. */
export async function countCredentialsCall(
  address: string,
  now: Date = new Date(),
  store: CounterStore = defaultStore(),
): Promise<void> {
  const hour = Math.floor(now.getTime() / HOUR_MS);
  const end = new Date((hour + 1) * HOUR_MS);
  let calls: number;
  try {
    // The store's second window is the one we need: a single counter per key.
    // An IPv6 caller by its /64: any other address of it is the same caller (SPEC.md).
    const key = `c|${addressBucket(address)}|${hour}`;
    calls = (await store.hit(undefined, { key, expiresAt: end }, 2 ** 31 - 1, now)).daily;
  } catch (error) {
    // As for the API's limits: a counter that cannot be read lets the call through, logged.
    log.error("credentials rate limit counters unavailable; call let through", { error: describeError(error) });
    return;
  }
  if (calls <= CREDENTIALS_CALLS_PER_HOUR) return;
  const retryAfter = Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
  throw new HttpError(
    "rate_limited",
    `At most ${CREDENTIALS_CALLS_PER_HOUR} calls per hour from one address reach the /credentials endpoints. Retry after ${retryAfter} seconds.`,
    { headers: { "retry-after": String(retryAfter) } },
  );
}

/** Who is calling, as the limit counts it: lib/client-address.ts with `TRUSTED_PROXY_HOPS`. */
export function credentialsCaller(headers: Headers): string {
  return clientAddress(headers, env().TRUSTED_PROXY_HOPS);
}
