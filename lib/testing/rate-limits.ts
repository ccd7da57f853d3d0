import { afterAll, beforeAll, expect } from "vitest";
import { BURST_WINDOW_MS, resetRateLimitStore } from "@/lib/api/rate-limit";
import { resetEnvCache } from "@/lib/env";
import { type ApiAnswer, expectError } from "@/lib/testing/api-client";

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

/** A 200 counted in the burst window: its X-RateLimit-* headers say `remaining` of `burst` are left. */
export function expectCounted(answer: ApiAnswer, burst: number, remaining: number): void {
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-ratelimit-max")).toBe(String(burst));
  expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(remaining));
  expect(answer.headers.get("x-ratelimit-daily-remaining")).toMatch(/^\d+$/);
}

/** SPEC.md's 429: rate_limited, Retry-After of a second or more, nothing remaining. */
export function expectRateLimited(answer: ApiAnswer): void {
  expectError(answer, 429, "rate_limited");
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(answer.headers.get("x-ratelimit-remaining")).toBe("0");
}
