import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyRole } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import type { UserType } from "@/lib/generated/prisma/client";
import { forbidden, invalid } from "@/lib/refusal";
import { installKey } from "./install-choice";

/**
 * What the person chose on the screen: sub-accounts for an agency install, one for a sub-account
 * install. `allLocations` is the screen's "All sub-accounts": every sub-account the agency has
 * when the install is approved (so also one created while the screen was open), and
 * `locationIds` is then not needed. Choosing every sub-account one by one counts as all too.
 * `installToFutureLocations` ("Also install on sub-accounts created later") counts only with all.
 */
export type InstallTarget =
  | { level: "agency"; locationIds: string[]; allLocations?: boolean; installToFutureLocations?: boolean }
  | { level: "location"; locationId: string };

/** The installing agency, as INSTALL events describe it. */
export interface InstallingCompany {
  id: string;
  name: string;
  whitelabelDomain: string | null;
  whitelabelLogoUrl: string | null;
}

/** The chosen target, checked against what the person may reach. */
export interface ResolvedTarget {
  userType: UserType;
  company: InstallingCompany;
  /** The sub-account of a sub-account install; null for an agency install. */
  locationId: string | null;
  /** The sub-accounts chosen one by one, or the one sub-account (empty with `allLocations`). */
  locationIds: string[];
  allLocations: boolean;
  installToFutureLocations: boolean;
  installKey: string;
}

/** Agency users install for the agency, sub-account users in one of their sub-accounts. */
export async function resolveTarget(actor: Actor, appId: string, target: InstallTarget): Promise<ResolvedTarget> {
  const agencyLevel = isAgencyRole(actor.role);
  if (agencyLevel !== (target.level === "agency")) {
    throw invalid(
      agencyLevel
        ? "Agency users install apps for the agency; choose its sub-accounts."
        : "Choose the sub-account to install the app in.",
    );
  }
  const company = await db().company.findUniqueOrThrow({
    where: { id: actor.companyId },
    select: { id: true, name: true, whitelabelDomain: true, whitelabelLogoUrl: true },
  });
  if (target.level === "agency") {
    const allLocations = target.allLocations === true;
    const locationIds = allLocations ? [] : [...new Set(target.locationIds)];
    await checkAgencyLocations(actor, locationIds, allLocations);
    return {
      userType: "Company",
      company,
      locationId: null,
      locationIds,
      allLocations,
      installToFutureLocations: target.installToFutureLocations === true,
      installKey: installKey(appId, "Company", company.id),
    };
  }
  const locationId = await checkOwnLocation(actor, target.locationId);
  return {
    userType: "Location",
    company,
    locationId,
    locationIds: [locationId],
    allLocations: false,
    installToFutureLocations: false,
    installKey: installKey(appId, "Location", locationId),
  };
}

/** Sub-accounts of the person's own agency, and at least one unless it has none. */
async function checkAgencyLocations(actor: Actor, locationIds: string[], allLocations: boolean): Promise<void> {
  const agencyLocations = await db().location.count({ where: { companyId: actor.companyId } });
  const found = await db().location.count({ where: { companyId: actor.companyId, id: { in: locationIds } } });
  if (found !== locationIds.length) throw invalid("Choose sub-accounts of your own agency.", "locationIds");
  if (!allLocations && agencyLocations > 0 && locationIds.length === 0) {
    throw invalid("Choose at least one sub-account to install the app in.", "locationIds");
  }
}

/** A sub-account of the person's agency that they work in. */
async function checkOwnLocation(actor: Actor, locationId: string): Promise<string> {
  const location = await db().location.findUnique({
    where: { id: locationId },
    select: { id: true, companyId: true },
  });
  if (!location || location.companyId !== actor.companyId || !actor.locationIds.includes(location.id)) {
    throw forbidden("You can install apps only in the sub-accounts you work in.");
  }
  return locationId;
}
