/**
 * What one instance holds of the shared rate-limit counters (./rate-limit-store.ts): numbers it
 * claimed from a window's counter and has not yet handed to a request. A request takes the next
 * number held; a number within the limit lets it through, any other refuses it. Every number is
 * claimed once, by one instance, so no more requests pass than the limit however many instances
 * count, and one instance alone numbers its requests 1, 2, 3… in arrival order, as single
 * increments would.
 */

/** Claimed numbers not yet handed out, oldest first: ranges [first, last] as pairs. */
export class HeldNumbers {
  readonly #ranges: number[] = [];
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** Adds first…last (nothing when last < first), in order: two claims may come back in either order. */
  add(first: number, last: number): void {
    if (last < first) return;
    let at = this.#ranges.length;
    while (at > 0 && (this.#ranges[at - 2] as number) > first) at -= 2;
    this.#ranges.splice(at, 0, first, last);
    this.#count += last - first + 1;
  }

  /** The oldest number held; only when count > 0. */
  peek(): number {
    return this.#ranges[0] as number;
  }

  /** Takes the oldest number held; only when count > 0. */
  take(): number {
    const first = this.#ranges[0] as number;
    if (first === this.#ranges[1]) this.#ranges.splice(0, 2);
    else this.#ranges[0] = first + 1;
    this.#count -= 1;
    return first;
  }
}

/**
 * How far ahead of need a lease claims. A lease whose numbers ran out before its next claim came
 * back (requests had to wait) claims twice as many ahead from then on, up to MAX_AHEAD: a subject
 * busy on this instance is decided at once however fast its requests come, one seldom seen holds
 * few numbers.
 */
export class Reach {
  /** How many numbers a claim takes ahead of need. */
  ahead = FIRST_AHEAD;
  /** A request found none of the lease's numbers held and waited: the next claim takes further ahead. */
  ranDry = false;

  /** The reach of the claim going out now, grown when the lease ran dry since the last one. */
  grow(): number {
    if (this.ranDry) {
      this.ranDry = false;
      this.ahead = Math.min(MAX_AHEAD, this.ahead * 2);
    }
    return this.ahead;
  }

  /** A new claim goes out, ahead of need, when fewer numbers than this are held. */
  claimAgainBelow(): number {
    return this.ahead / 4;
  }
}

/** A burst window's counter, as this instance holds it. */
export class BurstLease {
  readonly held = new HeldNumbers();
  /** Held numbers within the limit: each needs a day's number beside it. */
  allowedHeld = 0;
  /** The window's count reached the limit: every number past the held ones refuses. */
  exhausted = false;
  /** The last number handed out (past the held ones, once exhausted, counted here). */
  last = 0;
  /** The highest count the counter returned. */
  known = 0;
  readonly reach = new Reach();

  constructor(
    readonly limit: number,
    readonly expiresAt: number,
  ) {}

  /** Adds the claim that brought the counter to `count` by `n`. */
  claimed(count: number, n: number): void {
    const first = count - n + 1;
    this.held.add(first, count);
    this.allowedHeld += Math.max(0, Math.min(count, this.limit) - first + 1);
    this.known = Math.max(this.known, count);
    if (count >= this.limit) this.exhausted = true;
  }

  /** Whether a new claim should go out ahead of need. */
  wantsClaim(): boolean {
    return !this.exhausted && this.held.count < this.reach.claimAgainBelow();
  }

  /** Whether the next number lets the request through; undefined when none can be handed out now. */
  nextAllowed(): boolean | undefined {
    if (this.held.count > 0) return this.held.peek() <= this.limit;
    return this.exhausted ? false : undefined;
  }

  take(): number {
    if (this.held.count === 0) {
      this.last += 1;
      return this.last;
    }
    const number = this.held.take();
    if (number <= this.limit) this.allowedHeld -= 1;
    this.last = Math.max(this.last, number);
    return number;
  }
}

/** A UTC day's counter, as this instance holds it. */
export class DailyLease {
  readonly held = new HeldNumbers();
  /** The last number handed out. */
  last = 0;
  /** The highest count the counter returned. */
  known = 0;
  readonly reach = new Reach();

  constructor(readonly expiresAt: number) {}

  claimed(count: number, n: number): void {
    this.held.add(count - n + 1, count);
    this.known = Math.max(this.known, count);
    // A request the burst window refuses reads the day's count: the last number known until one is taken.
    if (this.last === 0) this.last = count - n;
  }

  /** Whether a new claim should go out ahead of need. */
  wantsClaim(): boolean {
    return this.held.count < this.reach.claimAgainBelow();
  }

  take(): number {
    this.last = this.held.take();
    return this.last;
  }
}

/**
 * How many numbers to claim beyond the waiting requests, so that the next ones are decided without
 * a round trip: at most `ahead` (the lease's), and only while the counter is below half its limit
 * (`known` is its last count here; undefined when this instance has not seen it yet). From half the
 * limit on, each claim is exactly the waiting requests, so every instance decides the last half of
 * a window on exact counts.
 */
export function claimAhead(
  waiting: number,
  windows: { known: number | undefined; limit: number }[],
  ahead: number = FIRST_AHEAD,
): number {
  for (const { known, limit } of windows) {
    if (known === undefined) return 0;
    ahead = Math.min(ahead, Math.floor(limit / 2) - known - waiting);
  }
  return Math.max(0, ahead);
}

/** Numbers claimed ahead per window at first. */
export const FIRST_AHEAD = 64;
/**
 * At most this many numbers claimed ahead per window: what other instances may find claimed and
 * not yet used, should this one get no more requests of the subject in the window. A lease gets
 * there only after running out of numbers at every size below it, so only an instance that was
 * taking hundreds of a subject's numbers per round trip holds this many.
 */
export const MAX_AHEAD = 1024;
