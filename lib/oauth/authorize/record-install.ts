import { recordAudit } from "@/lib/accounts/audit";
import type { AppView } from "@/lib/apps/app-view";
import type { Tx } from "@/lib/db/client";
import { enqueueInstallEvents } from "../install-events";
import type { LocationChoice, UpsertedInstallation } from "./installation";
import type { ResolvedTarget } from "./resolve-target";

/**
 * INSTALL events for what is installed now, UNINSTALL events for the sub-accounts an agency
 * re-install left out, and the audit entries (the install's, and the approval's when an
 * approver's re-install moved the installation to the newest version): in the approving transaction.
 */
export async function recordInstall(
  tx: Tx,
  args: {
    app: AppView;
    userId: string;
    target: ResolvedTarget;
    installation: UpsertedInstallation;
    locationIds: string[];
    removed: string[];
    choice: LocationChoice;
    now: Date;
  },
): Promise<void> {
  const { app, target, installation, locationIds, removed, now } = args;
  const { grant } = installation;
  const ctx = { app, versionId: grant.versionId, company: target.company, userId: args.userId };
  await enqueueInstallEvents(tx, "INSTALL", ctx, { company: target.userType === "Company", locationIds }, now);
  if (removed.length) await enqueueInstallEvents(tx, "UNINSTALL", ctx, { company: false, locationIds: removed }, now);
  await recordAudit(tx, {
    companyId: target.company.id,
    locationId: target.locationId,
    actorUserId: args.userId,
    action: "app_installed",
    targetId: installation.id,
    details: {
      appId: app.id,
      appName: app.name,
      userType: target.userType,
      locationIds,
      scopes: grant.scopes,
      reinstall: installation.reinstall,
      ...args.choice,
    },
  });
  if (installation.approved) {
    // The same entry as Approve on the review screen writes.
    await recordAudit(tx, {
      companyId: target.company.id,
      locationId: target.locationId,
      actorUserId: args.userId,
      action: "app_update_approved",
      targetId: installation.id,
      details: {
        appId: app.id,
        appName: app.name,
        fromVersionId: installation.approved.fromVersionId,
        toVersionId: grant.versionId,
        added: installation.approved.added,
        removed: installation.approved.removed,
      },
    });
  }
}
