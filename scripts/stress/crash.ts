// An instance killed mid-delivery and restarted loses no webhook event.
import { logTail } from "../support/production-server";
import { check, leaseSeconds, results, say } from "./context";
import { type Instance, type SlowReceiver, sleep } from "./instances";

/**
 * SIGKILL `victim` while its deliveries are in flight, restart it, and wait until the receiver has
 * answered every webhook-id (the events exist already, in `expected`).
 */
export async function crashMidDelivery(
  label: string,
  victim: Instance,
  receiver: SlowReceiver,
  expected: Set<string>,
  /** Deliveries in flight before the kill; above one instance's concurrency (10) means every instance has some. */
  minInFlight: number,
): Promise<void> {
  const started = Date.now();
  while (receiver.inFlight < minInFlight) {
    if (Date.now() - started > 60_000)
      throw new Error(`${label}: never ${minInFlight} deliveries in flight within 60 s. ${logTail(victim.logFile)}`);
    await sleep(10);
  }
  const inFlight = receiver.inFlight;
  const answeredBefore = receiver.seen.size;
  await victim.kill();
  const killedAt = Date.now();
  say(`${label}: killed ${victim.name} with ${inFlight} deliveries in flight (${answeredBefore} answered before)`);
  const restartMs = await victim.start();
  const deadline = Date.now() + (leaseSeconds + 120) * 1000;
  while ([...expected].some((id) => !receiver.seen.has(id))) {
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  const missing = [...expected].filter((id) => !receiver.seen.has(id));
  const duplicates = [...receiver.seen.values()].filter((n) => n > 1).length;
  results[`${label}.crash`] = {
    events: expected.size,
    inFlightAtKill: inFlight,
    answeredBeforeKill: answeredBefore,
    cutOffByKill: receiver.cutOff,
    restartMs,
    allDeliveredAfterKillMs: missing.length ? null : Date.now() - killedAt,
    deliveredMoreThanOnce: duplicates,
    missing: missing.length,
  };
  check(
    receiver.cutOff > 0 && missing.length === 0,
    `${label}: SIGKILL cut ${receiver.cutOff} deliveries off mid-request (${inFlight} in flight), restart: ${expected.size - missing.length}/${expected.size} webhook-ids delivered (${duplicates} more than once, which at-least-once allows)`,
  );
}
