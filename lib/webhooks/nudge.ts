/**
 * An in-process wake-up call for the dispatcher, so an event enqueued on this instance goes out
 * at once instead of at the next poll. Best effort: the poll (every second) is what guarantees
 * delivery, including for events enqueued by other instances.
 */
type Listener = () => void;
const holder = globalThis as typeof globalThis & { __webhookNudgeListeners?: Set<Listener> };
const listeners = () => {
  holder.__webhookNudgeListeners ??= new Set();
  return holder.__webhookNudgeListeners;
};

/** Wakes the dispatcher of this process after `delayMs` (give a transaction time to commit). */
export function nudgeDispatcher(delayMs = 0): void {
  if (listeners().size === 0) return;
  const timer = setTimeout(() => {
    for (const listener of listeners()) listener();
  }, delayMs);
  timer.unref?.();
}

export function onNudge(listener: Listener): () => void {
  listeners().add(listener);
  return () => listeners().delete(listener);
}
