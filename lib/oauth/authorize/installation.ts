import type { Actor } from "@/lib/accounts/permissions";
import type { AppView } from "@/lib/apps/app-view";
import { installationForUpdateSelect, moveInstallation, scopeChanges } from "@/lib/apps/installation-updates";
import type { Tx } from "@/lib/db/client";
import type { Scope } from "@/lib/scopes";
import { revokeGrants } from "../grants/revoke-grants";
import { grantOfInstall, type InstallGrant } from "./install-choice";
import type { ResolvedTarget } from "./resolve-target";

/** The installation's "all sub-accounts" flags, as stored on the row. */
export interface LocationChoice {
  approveAllLocations: boolean;
  installToFutureLocations: boolean;
}

/** The sub-accounts the install covers, read in the approving transaction. */
export async function chooseLocations(
  tx: Tx,
  target: ResolvedTarget,
): Promise<{ locationIds: string[]; choice: LocationChoice }> {
  if (target.userType !== "Company") {
    return { locationIds: target.locationIds, choice: { approveAllLocations: false, installToFutureLocations: false } };
  }
  const all = await lockAgencyLocations(tx, target.company.id);
  const locationIds = target.allLocations ? all : target.locationIds;
  const approveAll = target.allLocations || (all.length > 0 && all.every((id) => locationIds.includes(id)));
  return {
    locationIds,
    choice: {
      approveAllLocations: approveAll,
      installToFutureLocations: approveAll && target.installToFutureLocations,
    },
  };
}

/**
 * The agency's sub-accounts, read after locking the agency row against new ones: a sub-account
 * created meanwhile (lib/accounts/companies.ts, which holds a share lock on the same row) either
 * committed before and is listed here, or waits and then finds this installation committed, with
 * its choice, to join (lib/oauth/future-installs.ts). Either way it is never left out of "all".
 */
async function lockAgencyLocations(tx: Tx, companyId: string): Promise<string[]> {
  // NO KEY UPDATE conflicts with that share lock, not with the key-share locks of foreign keys, so
  // rows that merely reference the agency (audit entries, users) are not held up.
  await tx.$queryRaw`SELECT id FROM "Company" WHERE id = ${companyId} FOR NO KEY UPDATE`;
  const rows = await tx.location.findMany({ where: { companyId }, select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}

export interface UpsertedInstallation {
  id: string;
  /** The row existed (installed or uninstalled): a re-install re-authorizes it. */
  reinstall: boolean;
  /** The sub-accounts of the install being replaced; empty when it was not installed. */
  installedLocationIds: string[];
  /** What the install grants: the installation's version and scopes now, and its code's scopes. */
  grant: InstallGrant;
  /** An approver's re-install moved the installation from this version: it counts as approval. */
  approved?: { fromVersionId: string; added: string[]; removed: string[] };
}

/**
 * Creates the Installation or re-authorizes the existing row of the same app and place, with the
 * grant of `grantOfInstall`: only an approver's re-install moves it to a newer version, and that
 * move is the approval's own (`moveInstallation`: live grants widened, `INSTALLATION_UPDATED`).
 */
export async function upsertInstallation(
  tx: Tx,
  args: { app: AppView; actor: Actor; scopes: Scope[]; target: ResolvedTarget; choice: LocationChoice; now: Date },
): Promise<UpsertedInstallation> {
  const { app, target } = args;
  // Locked before it is read: an approval, decline or removal committing meanwhile is read, not overwritten.
  await tx.$executeRaw`SELECT 1 FROM "Installation" WHERE "installKey" = ${target.installKey} FOR NO KEY UPDATE`;
  const existing = await tx.installation.findUnique({
    where: { installKey: target.installKey },
    select: { ...installationForUpdateSelect, status: true, locations: { select: { locationId: true } } },
  });
  const grant = grantOfInstall(args.actor, app, args.scopes, existing);
  if (existing && grant.approvesUpdate) {
    await moveInstallation(tx, existing, grant, { webhookUrl: app.webhookUrl, userId: args.actor.id, now: args.now });
  }
  const data = {
    versionId: grant.versionId,
    installedByUserId: args.actor.id,
    scopes: grant.scopes,
    status: "installed" as const,
    uninstalledAt: null,
    // On the newest version nothing is left to decline; an older one keeps its decline.
    ...(grant.versionId === app.versionId ? { declinedVersionId: null } : {}),
    // A re-install replaces the choice: some sub-accounts turn both off.
    ...args.choice,
  };
  const installation = existing
    ? await tx.installation.update({ where: { id: existing.id }, data, select: { id: true } })
    : await tx.installation.create({
        data: {
          ...data,
          installKey: target.installKey,
          appId: app.id,
          companyId: target.company.id,
          locationId: target.locationId,
          userType: target.userType,
        },
        select: { id: true },
      });
  return {
    id: installation.id,
    reinstall: Boolean(existing),
    installedLocationIds: existing?.status === "installed" ? existing.locations.map((l) => l.locationId) : [],
    grant,
    approved:
      existing && grant.approvesUpdate
        ? { fromVersionId: existing.versionId, ...scopeChanges(existing.scopes, grant.scopes) }
        : undefined,
  };
}

/**
 * An agency install's sub-accounts become `locationIds`; those no longer chosen lose their
 * Location tokens at once. Returns the removed ones (they get UNINSTALL events).
 */
export async function reconcileSubAccounts(
  tx: Tx,
  target: ResolvedTarget,
  installation: UpsertedInstallation,
  locationIds: string[],
  now: Date,
): Promise<string[]> {
  if (target.userType !== "Company") return [];
  const removed = installation.installedLocationIds.filter((id) => !locationIds.includes(id));
  await tx.installationLocation.deleteMany({ where: { installationId: installation.id } });
  if (locationIds.length) {
    await tx.installationLocation.createMany({
      data: locationIds.map((id) => ({ installationId: installation.id, locationId: id })),
    });
  }
  if (removed.length) {
    await revokeGrants(tx, { installationId: installation.id, userType: "Location", locationId: { in: removed } }, now);
  }
  return removed;
}
