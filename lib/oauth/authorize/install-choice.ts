import { type Actor, canAccessLocation } from "@/lib/accounts/permissions";
import { isAgencyAdmin, isAgencyRole } from "@/lib/accounts/roles";
import type { AppView } from "@/lib/apps/app-view";
import { db } from "@/lib/db/client";
import type { UserType } from "@/lib/generated/prisma/client";
import type { Scope } from "@/lib/scopes";

/** The install screen's model: where the signed-in person may install the app, or why they may not. */
export type InstallChoice =
  | ({
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
    } & Pick<InstallGrant, "scopes" | "withheld">)
  | {
      allowed: true;
      level: "location";
      /** The sub-accounts the person works in, each with what installing there grants. */
      locations: ({ id: string; name: string; installed: boolean } & Pick<InstallGrant, "scopes" | "withheld">)[];
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

/** For an agency install, the agency's owners and admins; for a sub-account install, those and the sub-account's admins. */
export function canApproveUpdate(actor: Actor, installation: InstallationPlace): boolean {
  if (actor.companyId !== installation.companyId || !canInstall(actor, installation.app)) return false;
  if (isAgencyAdmin(actor.role)) return true;
  return (
    installation.userType === "Location" &&
    actor.role === "account_admin" &&
    installation.locationId !== null &&
    canAccessLocation(actor, { id: installation.locationId, companyId: installation.companyId })
  );
}

/** The installation an install re-authorizes, as `grantOfInstall` reads it. */
export interface ExistingInstallation {
  status: string;
  versionId: string;
  scopes: string[];
  companyId: string;
  locationId: string | null;
  userType: string;
}

export interface InstallGrant {
  /** The version the installation runs after the install (tokens carry it). */
  versionId: string;
  /** The scopes the install grants: the installation's and its code's. */
  scopes: Scope[];
  /** Scopes asked for that it does not grant: they wait for an approver. */
  withheld: Scope[];
  /** The installation was behind the newest version and moves to it: an approval. */
  approvesUpdate: boolean;
}

/**
 * What installing grants (SPEC.md › Apps that grow without reinstalls): a first install (or one
 * after an uninstall) and an approver's re-install, the newest version with the scopes asked for;
 * anyone else's re-install, the installation's own version and no scope it does not hold already,
 * so a pending or declined update waits for an approver. The screen shows it, approval applies it.
 */
export function grantOfInstall(
  actor: Actor,
  app: Pick<AppView, "versionId" | "installSetting">,
  requested: Scope[],
  existing: ExistingInstallation | null,
): InstallGrant {
  if (existing?.status !== "installed" || canApproveUpdate(actor, { ...existing, app })) {
    const approvesUpdate = existing?.status === "installed" && existing.versionId !== app.versionId;
    return { versionId: app.versionId, scopes: requested, withheld: [], approvesUpdate };
  }
  const held = new Set(existing.scopes);
  return {
    versionId: existing.versionId,
    scopes: requested.filter((s) => held.has(s)),
    withheld: requested.filter((s) => !held.has(s)),
    approvesUpdate: false,
  };
}

/** What `grantOfInstall` reads of an installation. */
export const existingInstallationSelect = {
  status: true,
  versionId: true,
  scopes: true,
  companyId: true,
  locationId: true,
  userType: true,
} as const;

/**
 * The scopes the screen lists: the agency install's grant, or the sub-accounts' when they all
 * grant the same; otherwise what was asked for, each sub-account naming what it holds back.
 */
export function listedGrant(
  choice: Extract<InstallChoice, { allowed: true }>,
  requested: Scope[],
): Pick<InstallGrant, "scopes" | "withheld"> {
  if (choice.level === "agency") return { scopes: choice.scopes, withheld: choice.withheld };
  const [first, ...rest] = choice.locations;
  const same = (a: Scope[], b: Scope[]) => a.length === b.length && a.every((s, i) => s === b[i]);
  if (first && rest.every((l) => same(l.scopes, first.scopes)))
    return { scopes: first.scopes, withheld: first.withheld };
  return { scopes: requested, withheld: [] };
}

/** `<appId>:<Company|Location>:<id>`: one Installation row per app and place, so a re-install re-authorizes it. */
export function installKey(appId: string, userType: UserType, targetId: string): string {
  return `${appId}:${userType}:${targetId}`;
}

/** The screen's model; `requested` is what the install link asks for (all the app's scopes when absent). */
export async function installChoiceFor(
  actor: Actor,
  app: AppView,
  requested: Scope[] = app.scopes,
): Promise<InstallChoice> {
  if (!canInstall(actor, app)) {
    return {
      allowed: false,
      status: 403,
      title: "Only agency owners and admins can install this app",
      message: `${app.name} can be installed by an agency owner or admin only. Ask one of them to install it for your agency.`,
    };
  }
  return isAgencyRole(actor.role) ? agencyChoice(actor, app, requested) : subAccountChoice(actor, app, requested);
}

/** An agency user installs for the agency: every sub-account, with the current install's choice. */
async function agencyChoice(actor: Actor, app: AppView, requested: Scope[]): Promise<InstallChoice> {
  const [locations, installation] = await Promise.all([
    db().location.findMany({
      where: { companyId: actor.companyId },
      select: { id: true, name: true },
      orderBy: [{ name: "asc" }, { id: "asc" }],
    }),
    db().installation.findUnique({
      where: { installKey: installKey(app.id, "Company", actor.companyId) },
      select: {
        ...existingInstallationSelect,
        approveAllLocations: true,
        installToFutureLocations: true,
        locations: { select: { locationId: true } },
      },
    }),
  ]);
  const installed = installation?.status === "installed" ? installation : undefined;
  const { scopes, withheld } = grantOfInstall(actor, app, requested, installation);
  return {
    allowed: true,
    level: "agency",
    scopes,
    withheld,
    locations,
    installedLocationIds: installed?.locations.map((l) => l.locationId),
    approveAllLocations: installed?.approveAllLocations ?? false,
    installToFutureLocations: installed?.approveAllLocations ? installed.installToFutureLocations : true,
  };
}

/** A sub-account user installs in one of the sub-accounts they work in. */
async function subAccountChoice(actor: Actor, app: AppView, requested: Scope[]): Promise<InstallChoice> {
  const locations = await db().location.findMany({
    where: { companyId: actor.companyId, id: { in: actor.locationIds } },
    select: {
      id: true,
      name: true,
      installations: { where: { appId: app.id, status: "installed" }, select: existingInstallationSelect },
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
    locations: locations.map((l) => {
      const { scopes, withheld } = grantOfInstall(actor, app, requested, l.installations[0] ?? null);
      return { id: l.id, name: l.name, installed: l.installations.length > 0, scopes, withheld };
    }),
  };
}
