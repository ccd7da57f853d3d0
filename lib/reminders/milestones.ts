/**
 * The reminder milestones of a private integration (SPEC.md › Usage and reminders), a pure rule of
 * the clock: 14, 7 and 1 days before its `Expires` date, counted in whole UTC days from today to
 * that date (the last day it works), and 90 days after its current token was issued. Of several
 * expiry milestones already passed (a check after downtime, or an Expires date set close), only
 * the nearest is due. An integration that has expired gets none.
 */

const DAY_MS = 86_400_000;

export const EXPIRY_MILESTONE_DAYS = [1, 7, 14] as const;
export const ROTATION_DUE_DAYS = 90;

export interface ReminderSubject {
  /** The moment its tokens stop (midnight UTC after the Expires date); null: never expires. */
  expiresAt: Date | null;
  /** The current token: its id and when it was issued. */
  currentTokenId: string;
  tokenIssuedAt: Date;
}

export interface DueMilestone {
  kind: "expiry" | "rotation_due";
  /** Unique per integration: a later Expires date or a new token arms the reminders again. */
  milestone: string;
  /** `YYYY-MM-DD`: the Expires date, or the day the token reached 90 days. */
  dueDate: string;
  /** Expiry: whole days from today to the Expires date (0: today is the last day). */
  daysLeft?: number;
}

const utcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export function dueMilestones(subject: ReminderSubject, now: Date): DueMilestone[] {
  if (subject.expiresAt && subject.expiresAt.getTime() <= now.getTime()) return [];
  const due: DueMilestone[] = [];
  if (subject.expiresAt) {
    const lastDay = utcDay(new Date(subject.expiresAt.getTime() - 1));
    const daysLeft = lastDay - utcDay(now);
    const nearest = EXPIRY_MILESTONE_DAYS.find((n) => daysLeft <= n);
    if (nearest !== undefined) {
      const dueDate = dateOf(lastDay);
      due.push({ kind: "expiry", milestone: `expires-${nearest}d:${dueDate}`, dueDate, daysLeft });
    }
  }
  const dueAt = subject.tokenIssuedAt.getTime() + ROTATION_DUE_DAYS * DAY_MS;
  if (dueAt <= now.getTime()) {
    due.push({
      kind: "rotation_due",
      milestone: `rotation-${ROTATION_DUE_DAYS}d:${subject.currentTokenId}`,
      dueDate: dateOf(utcDay(new Date(dueAt))),
    });
  }
  return due;
}
