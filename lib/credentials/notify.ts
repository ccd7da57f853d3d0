import { log } from "@/lib/log";
import { notifyEventSafely } from "@/lib/reminders/events";

/**
 * Who hears that a token was reported as leaked. The audit entry is already written, in the
 * revocation's transaction (lib/integrations/revoke-leaked.ts, lib/oauth/revoke-leaked.ts); after
 * the commit the people are told (SPEC.md › Usage and reminders: in the app and by e-mail,
 * lib/reminders/events.ts): an integration's managers, or the owners and admins of the agency
 * where the app whose refresh token leaked is installed.
 */

/** What was revoked, in ids and names only: never a token or its hash. */
export type LeakedTokenNotice =
  | {
      kind: "private_integration";
      companyId: string;
      locationId: string | null;
      integrationId: string;
      name: string;
      tokenHint: string;
      reason: string;
      at: Date;
    }
  | {
      kind: "refresh_token";
      companyId: string;
      locationId: string | null;
      appId: string;
      grantId: string;
      reason: string;
      at: Date;
    };

/**
 * Tells the log and the people that a token was revoked as leaked. Never throws: the revocation
 * has committed, and a failure to tell someone must not turn it into an error.
 */
export async function notifyLeakedToken(notice: LeakedTokenNotice): Promise<void> {
  const target = notice.kind === "private_integration" ? notice.integrationId : notice.grantId;
  log.warn("token revoked as leaked", { kind: notice.kind, companyId: notice.companyId, row: target });
  await notifyEventSafely(
    notice.kind === "private_integration"
      ? {
          kind: "integration_revoked",
          integrationId: notice.integrationId,
          companyId: notice.companyId,
          locationId: notice.locationId,
          at: notice.at,
        }
      : {
          kind: "refresh_token_revoked",
          appId: notice.appId,
          grantId: notice.grantId,
          companyId: notice.companyId,
          at: notice.at,
        },
  );
}
