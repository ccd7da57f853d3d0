import nodemailer from "nodemailer";
import { appUrl, env } from "@/lib/env";

/** An e-mail of a reminder: plain text, never a token. */
export interface ReminderEmail {
  to: string;
  subject: string;
  text: string;
}

/** Hands an e-mail to the SMTP server; throws when it is refused or unreachable. */
export type Mailer = (email: ReminderEmail) => Promise<void>;

/** The sender: `MAIL_FROM`, or no-reply at APP_URL's host. */
export function mailFrom(): string {
  return env().MAIL_FROM ?? `Token Service <no-reply@${new URL(appUrl()).hostname}>`;
}

/** A mailer for `smtpUrl` (nodemailer's SMTP transport); undefined without one (mail is off). */
export function smtpMailer(
  smtpUrl: string | undefined = env().SMTP_URL,
  from: string = mailFrom(),
): Mailer | undefined {
  if (!smtpUrl) return undefined;
  const transport = nodemailer.createTransport(smtpUrl);
  return async (email) => {
    await transport.sendMail({ from, to: email.to, subject: email.subject, text: email.text });
  };
}
