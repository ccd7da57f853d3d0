import { afterAll, beforeAll } from "vitest";
import { BURST_WINDOW_MS, resetRateLimitStore } from "@/lib/api/rate-limit";
import { resetEnvCache } from "@/lib/env";

/** Runs the file's tests with RATE_LIMIT_BURST = `burst`, so a limit is reached in a few calls. */
export function withBurstLimit(burst: number): void {
  beforeAll(() => {
    process.env.RATE_LIMIT_BURST = String(burst);
    resetEnvCache();
    resetRateLimitStore();
  });
  afterAll(() => {
    delete process.env.RATE_LIMIT_BURST;
    resetEnvCache();
    resetRateLimitStore();
  });
}

/** Waits, if need be, for the start of a 10-second window, so that the calls of one test fall in one window. */
export async function startOfBurstWindow(): Promise<void> {
  const into = Date.now() % BURST_WINDOW_MS;
  if (into > 3_000) await new Promise((resolve) => setTimeout(resolve, BURST_WINDOW_MS - into + 20));
}
