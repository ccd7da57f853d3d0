/**
 * The current time for the hot paths of the HTTP API and the token endpoint.
 *
 * Next.js replaces the global `Date` (next/dist/server/node-environment-extensions/date.js) with a
 * constructor that asks two of its async storages on every `new Date()`, so that a prerender
 * noticing the clock can stop; the API never prerenders, and on its hottest read that check was a
 * measurable share of the server's CPU (bench-results.md › Figures the code rests on).
 * scripts/serve.mjs keeps the platform's own `Date` here before Next.js loads; anywhere
 * else (tests, `next dev`) this is `new Date()`. Both make the same objects: the replacement
 * shares the platform's prototype.
 */
const PLATFORM_DATE = "__tokenServicePlatformDate";

export function currentTime(): Date {
  return new (platformDate() ?? Date)();
}

/** `Date.now()`, likewise. */
export function currentMillis(): number {
  return (platformDate() ?? Date).now();
}

/** Read on every call, not once: a test that installs fake timers still sets the time. */
function platformDate(): DateConstructor | undefined {
  return (globalThis as { [PLATFORM_DATE]?: DateConstructor })[PLATFORM_DATE];
}
