import { randomBytes } from "node:crypto";
import { z } from "zod";
import { hashPassword } from "@/lib/crypto/password";
import { db, type Tx } from "@/lib/db/client";
import type { AuditAction, Prisma } from "@/lib/generated/prisma/client";
import { conflict, forbidden, invalid, notFound, type Refusal } from "@/lib/refusal";
import { recordAudit } from "./audit";
import { type Actor, canManageMember } from "./permissions";
import { isAgencyAdmin, isAgencyRole, roleSchema } from "./roles";
import { actorSelect, checkLocations, toActor } from "./users";

/* What an agency's owners and admins change on their team: role and permissions, Remove, Reset password. */

export const teamMemberUpdateSchema = z.object({
  userId: z.string().min(1),
  role: roleSchema.optional(),
  locationIds: z.array(z.string().min(1)).optional(),
  agencyPrivateIntegrations: z.boolean().optional(),
  locationPrivateIntegrations: z.boolean().optional(),
});
export type TeamMemberUpdate = z.input<typeof teamMemberUpdateSchema>;

/** Role and Roles-and-Permissions switches of a team member, changed by an owner or admin. */
export async function updateTeamMember(actor: Actor, input: TeamMemberUpdate): Promise<Actor> {
  const change = teamMemberUpdateSchema.parse(input);
  if (!isAgencyAdmin(actor.role)) throw forbidden("Only the agency's owners and admins can change team members.");
  const target = await db().user.findFirst({
    where: { id: change.userId, companyId: actor.companyId, removedAt: null },
    select: actorSelect,
  });
  if (!target) throw notFound("There is no such team member in your agency.");
  const role = change.role ?? target.role;
  if (target.role === "agency_owner" && actor.role !== "agency_owner") throw ownersOnly();
  if (role === "agency_owner" && role !== target.role && actor.role !== "agency_owner") {
    throw forbidden("Only an agency owner can make someone an owner.");
  }
  if (target.id === actor.id && role !== target.role) throw forbidden("You cannot change your own role.");
  const locationIds =
    change.locationIds !== undefined || role !== target.role
      ? await checkLocations(actor.companyId, role, change.locationIds ?? target.memberships.map((m) => m.locationId))
      : undefined;
  return db().$transaction(async (tx) => {
    if (target.role === "agency_owner") {
      // The owners' rows are locked first (as Remove does), so two owners demoting each other at
      // once cannot leave none: the second waits for the first, then sees one owner (and that it
      // is no longer one). The actor is re-checked against them: only an owner changes an owner.
      const owners = await lockActiveOwners(tx, actor.companyId);
      if (!owners.includes(actor.id)) throw ownersOnly();
      if (!owners.includes(target.id)) throw conflict("This team member's role changed meanwhile: reload.");
      if (role !== "agency_owner" && owners.length <= 1) throw invalid("An agency needs at least one owner.", "role");
    } else {
      // A member made an owner meanwhile is an owner's to change: their row is locked and re-read.
      const [current] = await tx.$queryRaw<{ role: string }[]>`
        SELECT role FROM "User" WHERE id = ${target.id} AND "removedAt" IS NULL FOR UPDATE`;
      if (current?.role !== target.role) throw conflict("This team member's role changed meanwhile: reload.");
    }
    if (locationIds) {
      await tx.locationMembership.deleteMany({ where: { userId: target.id } });
      if (locationIds.length)
        await tx.locationMembership.createMany({
          data: locationIds.map((locationId) => ({ userId: target.id, locationId })),
        });
    }
    const updated = await tx.user.update({
      where: { id: target.id },
      data: {
        role,
        agencyPrivateIntegrations:
          isAgencyRole(role) && (change.agencyPrivateIntegrations ?? target.agencyPrivateIntegrations),
        locationPrivateIntegrations: change.locationPrivateIntegrations ?? target.locationPrivateIntegrations,
      },
      select: actorSelect,
    });
    const permissionsChanged =
      updated.agencyPrivateIntegrations !== target.agencyPrivateIntegrations ||
      updated.locationPrivateIntegrations !== target.locationPrivateIntegrations;
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: permissionsChanged && role === target.role ? "user_permissions_changed" : "user_updated",
      targetId: target.id,
      details: {
        role: { from: target.role, to: updated.role },
        agencyPrivateIntegrations: { from: target.agencyPrivateIntegrations, to: updated.agencyPrivateIntegrations },
        locationPrivateIntegrations: {
          from: target.locationPrivateIntegrations,
          to: updated.locationPrivateIntegrations,
        },
      },
    });
    return toActor(updated);
  });
}

/** SPEC.md: only an owner changes anything of an owner's, permissions included. */
const ownersOnly = () =>
  forbidden("Only an agency owner can change an owner's role, permissions, password or membership.");

/** An active member of the actor's agency whom the actor may manage, or a refusal saying why. */
async function manageableMember(actor: Actor, userId: string, doing: string) {
  if (!isAgencyAdmin(actor.role)) throw forbidden(`Only the agency's owners and admins can ${doing}.`);
  const target = await db().user.findFirst({
    where: { id: userId, companyId: actor.companyId, removedAt: null },
    select: { id: true, email: true, name: true, role: true, companyId: true },
  });
  if (!target) throw notFound("There is no such team member in your agency.");
  if (!canManageMember(actor, target)) {
    throw forbidden(target.id === actor.id ? `You cannot ${doing} for yourself.` : ownersOnly().message);
  }
  return target;
}

/**
 * Locks the agency's active owners until the transaction ends and returns their ids, so two
 * concurrent changes cannot each leave "another owner" behind and together leave none.
 */
async function lockActiveOwners(tx: Tx, companyId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "User"
    WHERE "companyId" = ${companyId} AND role = 'agency_owner' AND "removedAt" IS NULL
    FOR UPDATE`;
  return rows.map((r) => r.id);
}

/**
 * The frame Remove and Reset password share: the member's row changes only while they are still an
 * active member of the actor's agency (and match `where`), and the change is audited in the same
 * transaction; `ifGone` says why nothing changed.
 */
async function changeActiveMember(
  tx: Tx,
  actor: Actor,
  target: { id: string },
  change: {
    where?: Prisma.UserWhereInput;
    data: Prisma.UserUpdateManyMutationInput;
    ifGone: () => Refusal;
    action: AuditAction;
    details: Prisma.InputJsonValue;
  },
): Promise<void> {
  const { count } = await tx.user.updateMany({
    where: { ...change.where, id: target.id, companyId: actor.companyId, removedAt: null },
    data: change.data,
  });
  if (count !== 1) throw change.ifGone();
  await recordAudit(tx, {
    companyId: actor.companyId,
    actorUserId: actor.id,
    action: change.action,
    targetId: target.id,
    details: change.details,
  });
}

export const teamMemberRefSchema = z.object({ userId: z.string().min(1).max(100) });

/**
 * Remove: the member can no longer sign in and every session of theirs ends at its next request
 * (on every instance: sessions are checked against the database). The row stays, so the audit
 * trail and "created by" of their private integrations still name them; those keep working.
 */
export async function removeTeamMember(
  actor: Actor,
  input: z.input<typeof teamMemberRefSchema>,
  now = new Date(),
): Promise<{ id: string; name: string; email: string }> {
  const { userId } = teamMemberRefSchema.parse(input);
  const target = await manageableMember(actor, userId, "remove team members");
  return db().$transaction(async (tx) => {
    if (target.role === "agency_owner") {
      const owners = await lockActiveOwners(tx, actor.companyId);
      if (!owners.includes(actor.id)) throw forbidden("Only an agency owner can remove an owner.");
      if (owners.length <= 1) throw invalid("An agency needs at least one owner.");
    }
    await changeActiveMember(tx, actor, target, {
      where: { role: target.role },
      data: { removedAt: now, sessionVersion: { increment: 1 } },
      ifGone: () => conflict("This team member was changed or removed meanwhile. Reload the page."),
      action: "user_removed",
      details: { email: target.email, role: target.role },
    });
    return { id: target.id, name: target.name, email: target.email };
  });
}

/** 16 characters of base64url: 96 random bits, easy enough to pass on and type once. */
function oneTimePassword(): string {
  return randomBytes(12).toString("base64url");
}

/**
 * Reset password: a new one-time password, returned once to show to the owner or admin. The
 * member's sessions end, and signing in with it only lets them choose their own password.
 */
export async function resetTeamMemberPassword(
  actor: Actor,
  input: z.input<typeof teamMemberRefSchema>,
): Promise<{ member: { id: string; name: string; email: string }; password: string }> {
  const { userId } = teamMemberRefSchema.parse(input);
  const target = await manageableMember(actor, userId, "reset passwords");
  const password = oneTimePassword();
  const passwordHash = await hashPassword(password);
  await db().$transaction((tx) =>
    changeActiveMember(tx, actor, target, {
      data: { passwordHash, mustChangePassword: true, sessionVersion: { increment: 1 } },
      ifGone: () => notFound("There is no such team member in your agency."),
      action: "user_password_reset",
      details: { email: target.email },
    }),
  );
  return { member: { id: target.id, name: target.name, email: target.email }, password };
}
