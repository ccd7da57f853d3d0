import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin, isAgencyRole } from "@/lib/accounts/roles";
import type { AppView } from "@/lib/apps/app-view";
import { db } from "@/lib/db/client";
import type { UserType } from "@/lib/generated/prisma/client";

/** The install screen's model: where the signed-in person may install the app, or why they may not. */
export type InstallChoice =
  | {
      allowed: true;
      level: "agency";
      /** Every sub-account of the agency. */
      locations: { id: string; name: string }[];
      /** When the app is already installed at agency level: the sub-accounts chosen then. */
      installedLocationIds?: string[];
      /** Whether that install chose all sub-accounts (the screen then starts with all chosen). */
      approveAllLocations: boolean;
      /** The "Also install on sub-accounts created later" box starts checked, unless a re-install
       *  of an install that chose all sub-accounts without it shows that choice again. */
      installToFutureLocations: boolean;
    }
  | {
      allowed: true;
      level: "location";
      /** The sub-accounts the person works in. */
      locations: { id: string; name: string; installed: boolean }[];
    }
  | { allowed: false; status: 403; title: string; message: string };

/** Agency-only apps: agency owners and admins only. Everyone: any agency or sub-account user. */
export function canInstall(actor: Actor, app: Pick<AppView, "installSetting">): boolean {
  return app.installSetting === "everyone" || isAgencyAdmin(actor.role);
}

/** An installation as the rules of who may change it (uninstall, approve an update) read it. */
export interface InstallationPlace {
  companyId: string;
  locationId: string | null;
  userType: string;
  app: Pick<AppView, "installSetting">;
}

/** `<appId>:<Company|Location>:<id>`: one Installation row per app and place, so a re-install re-authorizes it. */
export function installKey(appId: string, userType: UserType, targetId: string): string {
  return `${appId}:${userType}:${targetId}`;
}

export async function installChoiceFor(actor: Actor, app: AppView): Promise<InstallChoice> {
  if (!canInstall(actor, app)) {
    return {
      allowed: false,
      status: 403,
      title: "Only agency owners and admins can install this app",
      message: `${app.name} can be installed by an agency owner or admin only. Ask one of them to install it for your agency.`,
    };
  }
  return isAgencyRole(actor.role) ? agencyChoice(actor, app) : subAccountChoice(actor, app);
}

/** An agency user installs for the agency: every sub-account, with the current install's choice. */
async function agencyChoice(actor: Actor, app: AppView): Promise<InstallChoice> {
  const [locations, installation] = await Promise.all([
    db().location.findMany({
      where: { companyId: actor.companyId },
      select: { id: true, name: true },
      orderBy: [{ name: "asc" }, { id: "asc" }],
    }),
    db().installation.findUnique({
      where: { installKey: installKey(app.id, "Company", actor.companyId) },
      select: {
        status: true,
        approveAllLocations: true,
        installToFutureLocations: true,
        locations: { select: { locationId: true } },
      },
    }),
  ]);
  const installed = installation?.status === "installed" ? installation : undefined;
  return {
    allowed: true,
    level: "agency",
    locations,
    installedLocationIds: installed?.locations.map((l) => l.locationId),
    approveAllLocations: installed?.approveAllLocations ?? false,
    installToFutureLocations: installed?.approveAllLocations ? installed.installToFutureLocations : true,
  };
}

/** A sub-account user installs in one of the sub-accounts they work in. */
async function subAccountChoice(actor: Actor, app: AppView): Promise<InstallChoice> {
  const locations = await db().location.findMany({
    where: { companyId: actor.companyId, id: { in: actor.locationIds } },
    select: {
      id: true,
      name: true,
      installations: { where: { appId: app.id, status: "installed" }, select: { id: true } },
    },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  if (locations.length === 0) {
    return {
      allowed: false,
      status: 403,
      title: "You have no sub-account to install this app in",
      message: "Ask your agency to give you access to a sub-account, then open the install link again.",
    };
  }
  return {
    allowed: true,
    level: "location",
    locations: locations.map((l) => ({ id: l.id, name: l.name, installed: l.installations.length > 0 })),
  };
}
