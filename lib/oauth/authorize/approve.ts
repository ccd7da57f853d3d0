import type { Actor } from "@/lib/accounts/permissions";
import type { AppView } from "@/lib/apps/app-view";
import { randomSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { Prisma } from "@/lib/generated/prisma/client";
import { forbidden, invalid, Refusal } from "@/lib/refusal";
import { canInstall } from "./install-choice";
import { chooseLocations, reconcileSubAccounts, upsertInstallation } from "./installation";
import { issueCode } from "./issue-code";
import { type AuthorizeParams, redirectWith } from "./params";
import { recordInstall } from "./record-install";
import { type InstallTarget, resolveTarget } from "./resolve-target";
import { type ValidAuthorizeRequest, validateAuthorizeRequest } from "./validate";

/** The install screen's two answers: approve (an Installation and a code) or cancel. */

const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

export interface ApproveInstallOptions {
  actor: Actor;
  params: AuthorizeParams;
  target: InstallTarget;
  now?: Date;
}

export interface ApprovedInstall {
  installationId: string;
  /** `redirect_uri?code=…&state=…` */
  redirectTo: string;
  /** The authorization code (also in redirectTo); for tests and the CLI, never logged. */
  code: string;
}

/**
 * Approving the install: creates or re-authorizes the Installation, records the chosen
 * sub-accounts, writes INSTALL events and the audit entry, and issues a code, all in one
 * transaction. Everything the screen showed is checked again here.
 */
export async function approveInstall(options: ApproveInstallOptions): Promise<ApprovedInstall> {
  const { actor } = options;
  const now = options.now ?? new Date();
  const request = await checkRequestAgain(options.params);
  const { app, scopes } = request;
  checkMayInstall(actor, app);
  const target = await resolveTarget(actor, app.id, options.target);
  const code = randomSecret(32);

  const install = () =>
    db().$transaction(async (tx) => {
      const { locationIds, choice } = await chooseLocations(tx, target);
      const installation = await upsertInstallation(tx, { app, actor, scopes, target, choice, now });
      const removed = await reconcileSubAccounts(tx, target, installation, locationIds, now);
      const granted = installation.grant.scopes;
      await issueCode(tx, { code, request, scopes: granted, installationId: installation.id, userId: actor.id, now });
      await recordInstall(tx, {
        app,
        userId: actor.id,
        target,
        installation,
        locationIds,
        removed,
        choice,
        now,
      });
      return installation.id;
    }, TRANSACTION_OPTIONS);

  const installationId = await onceMoreIfRacedByAnotherInstall(() => changeCachedState(install));
  return { installationId, code, redirectTo: redirectWith(request.redirectUri, { code, state: request.state }) };
}

async function checkRequestAgain(params: AuthorizeParams): Promise<ValidAuthorizeRequest> {
  const check = await validateAuthorizeRequest(params);
  if (!check.ok) throw invalid(check.message);
  return check.request;
}

function checkMayInstall(actor: Actor, app: AppView): void {
  if (!canInstall(actor, app)) {
    throw forbidden(`${app.name} can be installed by an agency owner or admin only.`);
  }
}

/** Two first installs of the same place at once: the loser re-authorizes the winner's row. */
async function onceMoreIfRacedByAnotherInstall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return run();
    throw error;
  }
}

/** Cancel on the screen: back to the app with access_denied (RFC 6749 §4.1.2.1). */
export async function denyInstall(params: AuthorizeParams): Promise<string> {
  const check = await validateAuthorizeRequest(params);
  if (check.ok) {
    return redirectWith(check.request.redirectUri, {
      error: "access_denied",
      error_description: "The user cancelled the installation.",
      state: check.request.state,
    });
  }
  if (check.kind === "redirect") return check.redirectTo;
  throw new Refusal("invalid", check.message);
}
