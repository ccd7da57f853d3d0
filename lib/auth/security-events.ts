import { recordAudit } from "@/lib/accounts/audit";
import type { Tx } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import type { AuditAction } from "@/lib/generated/prisma/client";
import { mailInBackground } from "@/lib/reminders/events";
import type { Mailer } from "@/lib/reminders/mailer";

/**
 * Changes to how a person signs in (SPEC.md › Sign-in that guards every credential): each one is
 * written to the audit log in the transaction that makes it, and the ones a person must hear of
 * (two-factor on or off, a passkey added or removed, a recovery code used, a sign-in from a new
 * browser) are e-mailed to them once it is done, when SMTP_URL is set.
 */
export type SecurityEvent =
  | { kind: "two_factor_enabled" }
  | { kind: "two_factor_disabled"; by: "person" | "operator" }
  | { kind: "totp_added" }
  | { kind: "totp_removed" }
  | { kind: "passkey_added"; name: string }
  | { kind: "passkey_removed"; name: string }
  | { kind: "recovery_code_used"; address: string; left: number }
  | { kind: "recovery_codes_regenerated" }
  | { kind: "sign_in_new_browser"; browser: string; system: string; address: string }
  | { kind: "session_ended"; sessions: number };

export interface SecurityEventPerson {
  id: string;
  companyId: string;
  email: string;
}

const auditActions = {
  two_factor_enabled: "two_factor_enabled",
  two_factor_disabled: "two_factor_disabled",
  totp_added: "totp_added",
  totp_removed: "totp_removed",
  passkey_added: "passkey_added",
  passkey_removed: "passkey_removed",
  recovery_code_used: "recovery_code_used",
  recovery_codes_regenerated: "recovery_codes_regenerated",
  sign_in_new_browser: "sign_in_new_browser",
  session_ended: "session_ended",
} as const satisfies Record<SecurityEvent["kind"], AuditAction>;

/** Writes the event to the audit log, inside the change's transaction. */
export async function auditSecurityEvent(
  tx: Tx,
  person: SecurityEventPerson,
  event: SecurityEvent,
  actorUserId: string | null = person.id,
): Promise<void> {
  const { kind, ...details } = event;
  await recordAudit(tx, {
    companyId: person.companyId,
    actorUserId,
    action: auditActions[kind],
    targetId: person.id,
    ...(Object.keys(details).length ? { details } : {}),
  });
}

/** The e-mail a person gets for the event, or null for events that are only audited. */
export function securityEmail(person: SecurityEventPerson, event: SecurityEvent, now: Date) {
  const when = now.toISOString().replace("T", " ").slice(0, 16);
  const account = `${appUrl()}/settings/account`;
  const notYou = `If this was not you, change your password and review your sign-in methods and sessions: ${account}`;
  const mail = (subject: string, lines: string[]) => ({
    to: person.email,
    subject,
    text: [...lines, "", notYou].join("\n"),
  });
  switch (event.kind) {
    case "two_factor_enabled":
      return mail("Two-factor authentication is on", [
        `Two-factor authentication was turned on for your account on ${when} UTC. Signing in now asks for a second step after your password.`,
      ]);
    case "two_factor_disabled":
      return mail("Two-factor authentication is off", [
        event.by === "operator"
          ? `An operator removed your second factors and recovery codes on ${when} UTC (a lost device), and signed you out everywhere. Set up two-factor authentication again after you sign in.`
          : `Your last second factor was removed on ${when} UTC, so two-factor authentication is off for your account. Signing in asks only for your password.`,
      ]);
    case "passkey_added":
      return mail("A passkey was added to your account", [
        `The passkey “${event.name}” was added to your account on ${when} UTC. It can now sign you in.`,
      ]);
    case "passkey_removed":
      return mail("A passkey was removed from your account", [
        `The passkey “${event.name}” was removed from your account on ${when} UTC. It can no longer sign you in.`,
      ]);
    case "recovery_code_used":
      return mail("A recovery code was used to sign in", [
        `One of your recovery codes was used to sign in on ${when} UTC from ${event.address}. Each code works once; ${event.left} ${event.left === 1 ? "is" : "are"} left. Regenerate them under Settings › Account when few are left.`,
      ]);
    case "sign_in_new_browser":
      return mail("New sign-in to your account", [
        `Your account was signed in to from a browser not seen before: ${event.browser} on ${event.system}, from ${event.address}, on ${when} UTC.`,
      ]);
    default:
      return null;
  }
}

/** Records nothing; mails the person about the event when it is one they get e-mails for. */
export function mailSecurityEvent(
  person: SecurityEventPerson,
  event: SecurityEvent,
  now: Date,
  options: { mailer?: Mailer } = {},
): void {
  const email = securityEmail(person, event, now);
  if (email) mailInBackground(email, options);
}
