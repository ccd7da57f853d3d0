import { isLabsFeatureEnabled } from "@/lib/accounts/labs";
import { type Actor, canManageAgencyIntegrations, canManageLocationIntegrations } from "@/lib/accounts/permissions";
import { isAgencyRole } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/refusal";
import { MANAGE_SCOPE, mayManageIntegrations, READ_SCOPE } from "./no-escalation";

/** Whose integrations: the agency's own, or one sub-account's. */
export type IntegrationOwner = { level: "agency"; companyId: string } | { level: "location"; locationId: string };

/**
 * A private integration acting through the management API (SPEC.md › Private integrations under
 * automation): an agency integration, on its own agency and its sub-accounts, by its scopes.
 */
export interface IntegrationActor {
  kind: "integration";
  integrationId: string;
  companyId: string;
  scopes: readonly string[];
  /** Its `Sub-accounts` guard rail when it names some: it reaches only those sub-accounts. */
  allowedLocationIds?: readonly string[];
}

/** Who changes an integration: a person on the screens, or an integration through the API. */
export type LifecycleActor = Actor | IntegrationActor;

export function isIntegrationActor(actor: LifecycleActor): actor is IntegrationActor {
  return "kind" in actor && actor.kind === "integration";
}

/** An owner checked against the database and the actor. */
export interface ResolvedOwner {
  level: "agency" | "location";
  companyId: string;
  /** Null for agency integrations. */
  locationId: string | null;
  /** The agency's or sub-account's name, for headings. */
  name: string;
}

export type IntegrationAccess =
  | { ok: true; owner: ResolvedOwner }
  | { ok: false; reason: "not_found" | "labs_off" | "forbidden"; message: string };

export const labsOffMessage =
  "Private Integrations must be enabled in Labs first: an agency owner or admin can turn it on under Settings › Labs. Tokens already issued keep working.";

const missingPermission = {
  agency:
    "You need the “Agency private integrations” permission to see or manage the agency's private integrations. Ask an agency owner or admin to turn it on for you under Settings › Team.",
  location:
    "You need the “Sub-account private integrations” permission to see or manage this sub-account's private integrations. Ask an agency owner or admin to turn it on for you under Settings › Team.",
} as const;

/**
 * Decides, on the server, whether the actor may see and manage the owner's integrations, in this
 * order: the agency or sub-account must be the actor's own (another agency's is "not found", never
 * "forbidden", so ids reveal nothing), Labs must be on, and the actor needs the permission.
 */
export async function checkIntegrationAccess(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  access: "read" | "write" = "write",
): Promise<IntegrationAccess> {
  let resolved: ResolvedOwner;
  if (owner.level === "agency") {
    if (owner.companyId !== actor.companyId) return notFoundAccess("agency");
    const company = await db().company.findUnique({ where: { id: owner.companyId }, select: { name: true } });
    if (!company) return notFoundAccess("agency");
    resolved = { level: "agency", companyId: owner.companyId, locationId: null, name: company.name };
  } else {
    const location = await db().location.findUnique({
      where: { id: owner.locationId },
      select: { id: true, companyId: true, name: true },
    });
    if (!location || location.companyId !== actor.companyId) return notFoundAccess("location");
    if (isIntegrationActor(actor)) {
      if (actor.allowedLocationIds && !actor.allowedLocationIds.includes(location.id)) {
        return { ok: false, reason: "forbidden", message: "This integration's Sub-accounts do not include this one." };
      }
    } else if (!isAgencyRole(actor.role) && !actor.locationIds.includes(location.id)) {
      return { ok: false, reason: "forbidden", message: "You are not a member of this sub-account." };
    }
    resolved = { level: "location", companyId: location.companyId, locationId: location.id, name: location.name };
  }
  if (!(await isLabsFeatureEnabled(resolved.companyId, "private_integrations"))) {
    return { ok: false, reason: "labs_off", message: labsOffMessage };
  }
  if (isIntegrationActor(actor)) {
    if (mayManageIntegrations(actor.scopes, access)) return { ok: true, owner: resolved };
    const needed = access === "write" ? MANAGE_SCOPE : `${READ_SCOPE} (or ${MANAGE_SCOPE})`;
    return { ok: false, reason: "forbidden", message: `This integration needs the scope ${needed}.` };
  }
  const allowed =
    resolved.level === "agency"
      ? canManageAgencyIntegrations(actor, resolved.companyId)
      : canManageLocationIntegrations(actor, { id: resolved.locationId!, companyId: resolved.companyId });
  if (!allowed) return { ok: false, reason: "forbidden", message: missingPermission[resolved.level] };
  return { ok: true, owner: resolved };
}

function notFoundAccess(level: "agency" | "location"): IntegrationAccess {
  return {
    ok: false,
    reason: "not_found",
    message: level === "agency" ? "There is no such agency." : "There is no such sub-account in your agency.",
  };
}

/** checkIntegrationAccess, throwing the refusal as a Refusal (for lifecycle functions). */
export async function requireIntegrationAccess(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  access: "read" | "write" = "write",
): Promise<ResolvedOwner> {
  const checked = await checkIntegrationAccess(actor, owner, access);
  if (checked.ok) return checked.owner;
  throw new Refusal(checked.reason === "not_found" ? "not_found" : "forbidden", checked.message);
}
