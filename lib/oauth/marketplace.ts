import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin, isAgencyRole } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import type { InstallSetting, Prisma, UserType } from "@/lib/generated/prisma/client";
import { isScope, type Scope } from "@/lib/scopes";
import { canInstall } from "./authorize/install-choice";
import { canUninstall } from "./uninstall";

/**
 * The marketplace as one person sees it: the apps they may install (an Agency-only app only for
 * agency owners and admins) and the installations they can see, with whether they may uninstall.
 *
 * A place is where an installation is: the agency (an agency install) or one sub-account (a
 * sub-account install); there is one Installation row per app and place (its installKey), so
 * each app is listed once per place. An agency user installs for the agency, a sub-account user
 * in one of their sub-accounts (lib/oauth/authorize/resolve-target.ts): an app is offered under
 * "Apps you can install" while one of those places lacks it.
 */

export interface MarketplaceApp {
  id: string;
  name: string;
  description: string;
  developerName: string;
  installSetting: InstallSetting;
  scopes: Scope[];
  /** The install screen for this app, with its first registered redirect URI. */
  installUrl: string;
}

export interface InstalledApp {
  installationId: string;
  appId: string;
  appName: string;
  userType: UserType;
  /** Sub-account installs: the sub-account; agency installs: the chosen sub-accounts. */
  locations: { id: string; name: string }[];
  installedAt: Date;
  canUninstall: boolean;
  /**
   * Agency installs, for those who may install the app: the install screen again, to change the
   * chosen sub-accounts (the app is no longer offered under the apps one can install).
   */
  changeUrl?: string;
}

export function installUrl(app: { clientId: string; redirectUris: string[] }): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: app.redirectUris[0] ?? "",
  });
  return `/oauth/chooselocation?${query}`;
}

/** Apps installed at every place the person installs to: the agency, or each of their sub-accounts. */
async function appsInstalledEverywhere(actor: Actor): Promise<string[]> {
  if (isAgencyRole(actor.role)) {
    const rows = await db().installation.findMany({
      where: { companyId: actor.companyId, userType: "Company", status: "installed" },
      select: { appId: true },
    });
    return rows.map((row) => row.appId);
  }
  if (actor.locationIds.length === 0) return [];
  const rows = await db().installation.findMany({
    where: {
      companyId: actor.companyId,
      userType: "Location",
      status: "installed",
      locationId: { in: actor.locationIds },
    },
    select: { appId: true, locationId: true },
  });
  const places = new Map<string, Set<string>>();
  for (const row of rows) {
    if (row.locationId) places.set(row.appId, (places.get(row.appId) ?? new Set()).add(row.locationId));
  }
  const everyPlace = new Set(actor.locationIds).size;
  return [...places].filter(([, at]) => at.size === everyPlace).map(([appId]) => appId);
}

/** The apps the person may install and that are not yet installed at every place they install to. */
export async function listInstallableApps(actor: Actor): Promise<MarketplaceApp[]> {
  const installed = await appsInstalledEverywhere(actor);
  const rows = await db().app.findMany({
    where: {
      ...(isAgencyAdmin(actor.role) ? {} : { installSetting: "everyone" }),
      ...(installed.length ? { id: { notIn: installed } } : {}),
    },
    select: {
      id: true,
      name: true,
      description: true,
      installSetting: true,
      scopes: true,
      clientId: true,
      redirectUris: true,
      company: { select: { name: true } },
    },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    take: 500,
  });
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    developerName: row.company.name,
    installSetting: row.installSetting,
    scopes: row.scopes.filter(isScope),
    installUrl: installUrl(row),
  }));
}

export async function listInstalledApps(actor: Actor): Promise<InstalledApp[]> {
  const where: Prisma.InstallationWhereInput = isAgencyRole(actor.role)
    ? { companyId: actor.companyId, status: "installed" }
    : {
        companyId: actor.companyId,
        status: "installed",
        OR: [
          { userType: "Location", locationId: { in: actor.locationIds } },
          { userType: "Company", locations: { some: { locationId: { in: actor.locationIds } } } },
        ],
      };
  const rows = await db().installation.findMany({
    where,
    select: {
      id: true,
      companyId: true,
      locationId: true,
      userType: true,
      updatedAt: true,
      app: { select: { id: true, name: true, installSetting: true, clientId: true, redirectUris: true } },
      location: { select: { id: true, name: true } },
      // A sub-account user sees only their own sub-accounts of an agency install, not its others' names.
      locations: {
        where: isAgencyRole(actor.role) ? {} : { locationId: { in: actor.locationIds } },
        select: { location: { select: { id: true, name: true } } },
      },
    },
    orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
  });
  return rows.map((row) => ({
    installationId: row.id,
    appId: row.app.id,
    appName: row.app.name,
    userType: row.userType,
    locations:
      row.userType === "Location"
        ? row.location
          ? [row.location]
          : []
        : row.locations.map((l) => l.location).sort((a, b) => a.name.localeCompare(b.name)),
    installedAt: row.updatedAt,
    canUninstall: canUninstall(actor, row),
    changeUrl:
      row.userType === "Company" && isAgencyRole(actor.role) && canInstall(actor, row.app)
        ? installUrl(row.app)
        : undefined,
  }));
}
