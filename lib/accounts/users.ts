import { z } from "zod";
import { dummyPasswordHash, hashPassword, verifyPassword } from "@/lib/auth/password";
import { db } from "@/lib/db/client";
import { conflict, forbidden, invalid, notFound } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { recordAudit } from "./audit";
import type { Actor } from "./permissions";
import { defaultPermissions, isAgencyAdmin, isAgencyRole, type Role, roleSchema } from "./roles";

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: "Enter an e-mail address such as name@example.com." }))
  .transform((e) => e.toLowerCase());
export const passwordSchema = z
  .string()
  .min(8, { error: "Use a password of at least 8 characters." })
  .max(200, { error: "Use a password of at most 200 characters." });
export const personNameSchema = z
  .string()
  .trim()
  .min(1, { error: "Enter a name." })
  .max(120, { error: "Use a name of at most 120 characters." });

export const newUserSchema = z.object({
  email: emailSchema,
  // The Team screen asks for 8 characters or more (passwordSchema); the operator CLI and the
  // first-start seed take the operator's choice, as SPEC.md sets no rule.
  password: z
    .string()
    .min(1, { error: "Give a password." })
    .max(200, { error: "Use a password of at most 200 characters." }),
  name: personNameSchema,
  role: roleSchema,
  companyId: z.string().min(1),
  locationIds: z.array(z.string().min(1)).default([]),
  agencyPrivateIntegrations: z.boolean().optional(),
  locationPrivateIntegrations: z.boolean().optional(),
});
export type NewUser = z.input<typeof newUserSchema>;

const actorSelect = {
  id: true,
  email: true,
  name: true,
  role: true,
  companyId: true,
  agencyPrivateIntegrations: true,
  locationPrivateIntegrations: true,
  memberships: { select: { locationId: true } },
} as const;

type ActorRow = Prisma.UserGetPayload<{ select: typeof actorSelect }>;

function toActor(row: ActorRow): Actor {
  const { memberships, ...rest } = row;
  return { ...rest, locationIds: memberships.map((m) => m.locationId) };
}

async function checkLocations(companyId: string, role: Role, locationIds: string[]): Promise<string[]> {
  const unique = [...new Set(locationIds)];
  if (isAgencyRole(role)) return [];
  if (unique.length === 0) throw invalid("A sub-account user needs at least one sub-account.", "locationIds");
  const found = await db().location.count({ where: { id: { in: unique }, companyId } });
  if (found !== unique.length) throw invalid("Every sub-account must belong to this agency.", "locationIds");
  return unique;
}

/** Creates a person who can sign in. `actor` is absent for the operator CLI and first start. */
export async function createUser(input: NewUser, actor?: Actor): Promise<Actor> {
  const data = newUserSchema.parse(input);
  if (actor) {
    if (actor.companyId !== data.companyId || !isAgencyAdmin(actor.role)) {
      throw forbidden("Only the agency's owners and admins can add team members.");
    }
    if (data.role === "agency_owner" && actor.role !== "agency_owner") {
      throw forbidden("Only an agency owner can add another owner.");
    }
  }
  const company = await db().company.findUnique({ where: { id: data.companyId }, select: { id: true } });
  if (!company) throw notFound(`There is no agency with id ${data.companyId}.`);
  const locationIds = await checkLocations(data.companyId, data.role, data.locationIds);
  const defaults = defaultPermissions(data.role);
  const passwordHash = await hashPassword(data.password);
  try {
    return await db().$transaction(async (tx) => {
      const user = await tx.user.create({
        data: {
          email: data.email,
          name: data.name,
          passwordHash,
          role: data.role,
          companyId: data.companyId,
          agencyPrivateIntegrations:
            isAgencyRole(data.role) && (data.agencyPrivateIntegrations ?? defaults.agencyPrivateIntegrations),
          locationPrivateIntegrations: data.locationPrivateIntegrations ?? defaults.locationPrivateIntegrations,
          memberships: { create: locationIds.map((locationId) => ({ locationId })) },
        },
        select: actorSelect,
      });
      await recordAudit(tx, {
        companyId: data.companyId,
        actorUserId: actor?.id,
        action: "user_created",
        targetId: user.id,
        details: { email: user.email, role: user.role },
      });
      return toActor(user);
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict("Someone already signs in with this e-mail address.", "email");
    }
    throw error;
  }
}

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
    where: { id: change.userId, companyId: actor.companyId },
    select: actorSelect,
  });
  if (!target) throw notFound("There is no such team member in your agency.");
  const role = change.role ?? target.role;
  if (
    (role === "agency_owner" || target.role === "agency_owner") &&
    role !== target.role &&
    actor.role !== "agency_owner"
  ) {
    throw forbidden("Only an agency owner can make someone an owner or change an owner's role.");
  }
  if (target.id === actor.id && role !== target.role) throw forbidden("You cannot change your own role.");
  const locationIds =
    change.locationIds !== undefined || role !== target.role
      ? await checkLocations(actor.companyId, role, change.locationIds ?? target.memberships.map((m) => m.locationId))
      : undefined;
  return db().$transaction(async (tx) => {
    if (target.role === "agency_owner" && role !== "agency_owner") {
      // Counted under a lock on the owners' rows, so two owners demoting each other at once
      // cannot leave none: the second waits, then sees one owner (and that it is no longer one).
      const owners = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "User" WHERE "companyId" = ${actor.companyId} AND role = 'agency_owner' FOR UPDATE`;
      if (!owners.some((o) => o.id === actor.id))
        throw forbidden("Only an agency owner can make someone an owner or change an owner's role.");
      if (!owners.some((o) => o.id === target.id)) throw conflict("This team member's role changed meanwhile: reload.");
      if (owners.length <= 1) throw invalid("An agency needs at least one owner.", "role");
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

export async function loadActor(userId: string): Promise<Actor | null> {
  const row = await db().user.findUnique({ where: { id: userId }, select: actorSelect });
  return row ? toActor(row) : null;
}

export async function listTeam(companyId: string): Promise<Actor[]> {
  const rows = await db().user.findMany({
    where: { companyId },
    select: actorSelect,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toActor);
}

/** The user whose e-mail and password these are, or null; takes as long either way. */
export async function checkCredentials(email: string, password: string): Promise<Actor | null> {
  const parsed = emailSchema.safeParse(email);
  const row = parsed.success
    ? await db().user.findUnique({ where: { email: parsed.data }, select: { ...actorSelect, passwordHash: true } })
    : null;
  const ok = await verifyPassword(password, row?.passwordHash ?? dummyPasswordHash);
  if (!row || !ok) return null;
  const { passwordHash: _, ...rest } = row;
  return toActor(rest);
}
