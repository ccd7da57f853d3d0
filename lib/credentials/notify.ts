import { describeError, log } from "@/lib/log";

/**
 * Who hears that a token was reported as leaked. The audit entry is already written, in the
 * revocation's transaction (lib/integrations/revoke-leaked.ts, lib/oauth/revoke-leaked.ts); this
 * is the seam for the people to be told (SPEC.md › Usage and reminders: in the app and by e-mail):
 * a notifier registered with `addLeakedTokenNotifier` receives every notice after the commit.
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

export type LeakedTokenNotifier = (notice: LeakedTokenNotice) => Promise<void>;

const holder = globalThis as typeof globalThis & { __leakedTokenNotifiers?: Set<LeakedTokenNotifier> };

function notifiers(): Set<LeakedTokenNotifier> {
  holder.__leakedTokenNotifiers ??= new Set();
  return holder.__leakedTokenNotifiers;
}

/** Registers a notifier (the in-app and e-mail notifications); answers a function that removes it. */
export function addLeakedTokenNotifier(notifier: LeakedTokenNotifier): () => void {
  notifiers().add(notifier);
  return () => notifiers().delete(notifier);
}

/**
 * Tells every registered notifier, and the log, that a token was revoked as leaked. Never throws:
 * the revocation has committed, and a failure to tell someone must not turn it into an error.
 */
export async function notifyLeakedToken(notice: LeakedTokenNotice): Promise<void> {
  const target = notice.kind === "private_integration" ? notice.integrationId : notice.grantId;
  log.warn("token revoked as leaked", { kind: notice.kind, companyId: notice.companyId, row: target });
  for (const notifier of notifiers()) {
    await notifier(notice).catch((error: unknown) => {
      log.error("leaked-token notification failed", { kind: notice.kind, row: target, error: describeError(error) });
    });
  }
}
