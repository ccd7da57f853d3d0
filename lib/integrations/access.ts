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
  return decideIntegrationAccess(actor, await readOwnerFacts(actor, owner), access);
}

/** What the access rule reads of the database: the owner as found (its agency the actor's), and Labs. */
export interface OwnerFacts {
  owner: IntegrationOwner;
  /** The agency, or the sub-account with its agency; absent when there is none. */
  found?: { companyId: string; locationId: string | null; name: string };
  /** Private Integrations is on in the actor's agency's Labs. */
  labsOn: boolean;
  /** The agency's `Maximum token lifetime` in days, read beside it (the screens show it). */
  maximumTokenLifetimeDays: number | null;
}

/**
 * The facts of `checkIntegrationAccess`, read in one round: the queries are sent together, none
 * waits for another's answer (the screens read everything else beside them).
 */
export async function readOwnerFacts(actor: LifecycleActor, owner: IntegrationOwner): Promise<OwnerFacts> {
  const [company, location, labsOn] = await Promise.all([
    db().company.findUnique({
      where: { id: actor.companyId },
      select: { name: true, maximumTokenLifetimeDays: true },
    }),
    owner.level === "location"
      ? db().location.findUnique({ where: { id: owner.locationId }, select: { id: true, companyId: true, name: true } })
      : undefined,
    isLabsFeatureEnabled(actor.companyId, "private_integrations"),
  ]);
  return ownerFactsOf(actor, owner, { company, location, labsOn });
}

/**
 * The facts of `readOwnerFacts` from rows already read: the actor's agency (null: gone), the
 * sub-account the owner names (any agency's; null or undefined: none), and Labs.
 */
export function ownerFactsOf(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  read: {
    company: { name: string; maximumTokenLifetimeDays: number | null } | null;
    location: { id: string; companyId: string; name: string } | null | undefined;
    labsOn: boolean;
  },
): OwnerFacts {
  const { company, location, labsOn } = read;
  const maximumTokenLifetimeDays = company?.maximumTokenLifetimeDays ?? null;
  if (owner.level === "agency") {
    const found =
      company && owner.companyId === actor.companyId
        ? { companyId: owner.companyId, locationId: null, name: company.name }
        : undefined;
    return { owner, found, labsOn, maximumTokenLifetimeDays };
  }
  const found =
    location && location.companyId === actor.companyId
      ? { companyId: location.companyId, locationId: location.id, name: location.name }
      : undefined;
  return { owner, found, labsOn, maximumTokenLifetimeDays };
}

/** The rule of `checkIntegrationAccess` over facts already read. */
export function decideIntegrationAccess(
  actor: LifecycleActor,
  facts: OwnerFacts,
  access: "read" | "write" = "write",
): IntegrationAccess {
  const { found } = facts;
  if (!found) return notFoundAccess(facts.owner.level);
  if (found.locationId !== null) {
    if (isIntegrationActor(actor)) {
      if (actor.allowedLocationIds && !actor.allowedLocationIds.includes(found.locationId)) {
        return { ok: false, reason: "forbidden", message: "This integration's Sub-accounts do not include this one." };
      }
    } else if (!isAgencyRole(actor.role) && !actor.locationIds.includes(found.locationId)) {
      return { ok: false, reason: "forbidden", message: "You are not a member of this sub-account." };
    }
  }
  const resolved: ResolvedOwner = { level: found.locationId ? "location" : "agency", ...found };
  if (!facts.labsOn) return { ok: false, reason: "labs_off", message: labsOffMessage };
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
