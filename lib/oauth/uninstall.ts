import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { canAccessLocation } from "@/lib/accounts/permissions";
import { isAgencyRole } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { forbidden, notFound } from "@/lib/refusal";
import { canInstall, type InstallationPlace } from "./authorize/install-choice";
import { revokeGrants } from "./grants/revoke-grants";
import { enqueueInstallEvents } from "./install-events";

/**
 * Uninstalling an app: in one transaction the installation is marked uninstalled, every grant of
 * it (so every access and refresh token) is revoked, unused codes expire, and UNINSTALL events are
 * written for the agency and each sub-account it covered.
 */

export interface UninstallOptions {
  installationId: string;
  /** Absent for operator tools. */
  actor?: Actor;
  now?: Date;
}

/** Who may uninstall is who may install at that place. */
export function canUninstall(actor: Actor, installation: InstallationPlace): boolean {
  if (actor.companyId !== installation.companyId || !canInstall(actor, installation.app)) return false;
  if (installation.userType === "Company") return isAgencyRole(actor.role);
  return (
    installation.locationId !== null &&
    canAccessLocation(actor, { id: installation.locationId, companyId: installation.companyId })
  );
}

export async function uninstallApp(options: UninstallOptions): Promise<{ revokedGrants: number }> {
  // Its tokens stop working at once on this instance: see lib/db/read-cache.ts.
  return changeCachedState(() => uninstallInTransaction(options));
}

async function uninstallInTransaction(options: UninstallOptions): Promise<{ revokedGrants: number }> {
  const now = options.now ?? new Date();
  return db().$transaction(async (tx) => {
    const installation = await tx.installation.findUnique({
      where: { id: options.installationId },
      include: {
        app: { select: { id: true, name: true, webhookUrl: true, installSetting: true } },
        company: { select: { id: true, name: true, whitelabelDomain: true, whitelabelLogoUrl: true } },
      },
    });
    const { actor } = options;
    if (!installation || (actor && actor.companyId !== installation.companyId)) {
      throw notFound("This app is not installed here.");
    }
    if (actor && !canUninstall(actor, installation)) {
      throw forbidden(
        installation.userType === "Company"
          ? "Only the agency's users who can install this app can uninstall it."
          : "You can uninstall apps only in the sub-accounts you work in.",
      );
    }
    // Single transition: a second uninstall at the same time finds nothing to do.
    const changed = await tx.installation.updateMany({
      where: { id: installation.id, status: "installed" },
      data: { status: "uninstalled", uninstalledAt: now },
    });
    if (changed.count !== 1) throw notFound(`${installation.app.name} is already uninstalled.`);
    const revoked = await revokeGrants(tx, { installationId: installation.id }, now);
    await tx.authorizationCode.updateMany({
      where: { installationId: installation.id, consumedAt: null, expiresAt: { gt: now } },
      data: { expiresAt: now },
    });
    // Read after the transition, which locked the row: a sub-account that joined the install
    // meanwhile (lib/oauth/future-installs.ts) gets its UNINSTALL event too.
    const covered = await tx.installationLocation.findMany({
      where: { installationId: installation.id },
      select: { locationId: true },
      orderBy: { locationId: "asc" },
    });
    const locationIds =
      installation.userType === "Company"
        ? covered.map((l) => l.locationId)
        : installation.locationId
          ? [installation.locationId]
          : [];
    await tx.installationLocation.deleteMany({ where: { installationId: installation.id } });
    await enqueueInstallEvents(
      tx,
      "UNINSTALL",
      {
        app: installation.app,
        versionId: installation.versionId,
        company: installation.company,
        userId: actor?.id ?? installation.installedByUserId,
      },
      { company: installation.userType === "Company", locationIds },
      now,
    );
    await recordAudit(tx, {
      companyId: installation.companyId,
      locationId: installation.locationId,
      actorUserId: actor?.id,
      action: "app_uninstalled",
      targetId: installation.id,
      details: { appId: installation.app.id, appName: installation.app.name, userType: installation.userType },
    });
    return { revokedGrants: revoked.length };
  });
}
