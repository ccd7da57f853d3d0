import { recordAudit } from "@/lib/accounts/audit";
import type { AppView } from "@/lib/apps/app-view";
import type { Tx } from "@/lib/db/client";
import type { Scope } from "@/lib/scopes";
import { enqueueInstallEvents } from "../install-events";
import type { LocationChoice, UpsertedInstallation } from "./installation";
import type { ResolvedTarget } from "./resolve-target";

/**
 * INSTALL events for what is installed now, UNINSTALL events for the sub-accounts an agency
 * re-install left out, and the audit entry: in the approving transaction.
 */
export async function recordInstall(
  tx: Tx,
  args: {
    app: AppView;
    scopes: Scope[];
    userId: string;
    target: ResolvedTarget;
    installation: UpsertedInstallation;
    locationIds: string[];
    removed: string[];
    choice: LocationChoice;
    now: Date;
  },
): Promise<void> {
  const { app, target, locationIds, removed, now } = args;
  const ctx = { app, versionId: app.versionId, company: target.company, userId: args.userId };
  await enqueueInstallEvents(tx, "INSTALL", ctx, { company: target.userType === "Company", locationIds }, now);
  if (removed.length) await enqueueInstallEvents(tx, "UNINSTALL", ctx, { company: false, locationIds: removed }, now);
  await recordAudit(tx, {
    companyId: target.company.id,
    locationId: target.locationId,
    actorUserId: args.userId,
    action: "app_installed",
    targetId: args.installation.id,
    details: {
      appId: app.id,
      appName: app.name,
      userType: target.userType,
      locationIds,
      scopes: args.scopes,
      reinstall: args.installation.reinstall,
      ...args.choice,
    },
  });
}
