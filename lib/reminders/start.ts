import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { checkReminders } from "./check";
import { type Mailer, smtpMailer } from "./mailer";

/**
 * The reminder check of this instance: once at start (a milestone passed while the server was down
 * is notified then) and every REMINDER_CHECK_SECONDS; several instances may all run it (the
 * Notification key keeps each milestone once). Without SMTP_URL nothing is mailed, said once here.
 */

interface ReminderLoop {
  stopped: boolean;
  timer?: ReturnType<typeof setTimeout>;
  running?: Promise<unknown>;
}

const holder = globalThis as typeof globalThis & { __reminders?: ReminderLoop };

export function startReminders(options: { intervalMs?: number; firstRunDelayMs?: number; mailer?: Mailer } = {}): void {
  const intervalMs = options.intervalMs ?? env().REMINDER_CHECK_SECONDS * 1000;
  if (intervalMs <= 0 || (holder.__reminders && !holder.__reminders.stopped)) return;
  const mailer = options.mailer ?? smtpMailer();
  log.info(
    mailer ? "reminders started; e-mails through SMTP_URL" : "reminders started; e-mail is off: SMTP_URL is not set",
    {
      intervalMs,
    },
  );
  const loop: ReminderLoop = { stopped: false };
  holder.__reminders = loop;
  const tick = async () => {
    loop.running = checkReminders({ mailer }).catch((error: unknown) =>
      log.error("reminder check failed; tried again at the next one", { error: describeError(error) }),
    );
    await loop.running;
    schedule(intervalMs);
  };
  const schedule = (delayMs: number) => {
    if (loop.stopped) return;
    loop.timer = setTimeout(() => void tick(), delayMs);
    loop.timer.unref?.();
  };
  schedule(options.firstRunDelayMs ?? Math.min(5_000, intervalMs));
}

export async function stopReminders(): Promise<void> {
  const loop = holder.__reminders;
  if (!loop) return;
  loop.stopped = true;
  clearTimeout(loop.timer);
  await loop.running;
  if (holder.__reminders === loop) holder.__reminders = undefined;
}
