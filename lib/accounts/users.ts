import { randomBytes } from "node:crypto";
import { z } from "zod";
import { dummyPasswordHash, hashPassword, verifyPassword } from "@/lib/auth/password";
import { throttledSignIn } from "@/lib/auth/throttle";
import { db, type Tx } from "@/lib/db/client";
import { conflict, forbidden, invalid, notFound } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { recordAudit } from "./audit";
import { type Actor, canManageMember } from "./permissions";
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
    where: { id: change.userId, companyId: actor.companyId, removedAt: null },
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
        SELECT id FROM "User"
        WHERE "companyId" = ${actor.companyId} AND role = 'agency_owner' AND "removedAt" IS NULL FOR UPDATE`;
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

/** Who a session belongs to, or null when its person was removed or its credentials changed since. */
export async function loadSignedIn(
  userId: string,
  sessionVersion: number,
): Promise<{ actor: Actor; mustChangePassword: boolean } | null> {
  const row = await db().user.findFirst({
    where: { id: userId, sessionVersion, removedAt: null },
    select: { ...actorSelect, mustChangePassword: true },
  });
  if (!row) return null;
  const { mustChangePassword, ...rest } = row;
  return { actor: toActor(rest), mustChangePassword };
}

/** The agency's team as the Team screen lists it: removed members are no longer in it. */
export async function listTeam(companyId: string): Promise<Actor[]> {
  const rows = await db().user.findMany({
    where: { companyId, removedAt: null },
    select: actorSelect,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toActor);
}

/**
 * The user whose e-mail and password these are, with the session version a new session carries,
 * or null (also for a removed member); takes as long either way.
 */
export async function checkCredentials(
  email: string,
  password: string,
): Promise<(Actor & { sessionVersion: number }) | null> {
  const parsed = emailSchema.safeParse(email);
  const row = parsed.success
    ? await db().user.findUnique({
        where: { email: parsed.data },
        select: { ...actorSelect, passwordHash: true, sessionVersion: true, removedAt: true },
      })
    : null;
  const ok = await verifyPassword(password, row?.passwordHash ?? dummyPasswordHash);
  if (!row || !ok || row.removedAt) return null;
  const { passwordHash: _, sessionVersion, removedAt: __, ...rest } = row;
  return { ...toActor(rest), sessionVersion };
}

/** An active member of the actor's agency whom the actor may manage, or a refusal saying why. */
async function manageableMember(actor: Actor, userId: string, doing: string) {
  if (!isAgencyAdmin(actor.role)) throw forbidden(`Only the agency's owners and admins can ${doing}.`);
  const target = await db().user.findFirst({
    where: { id: userId, companyId: actor.companyId, removedAt: null },
    select: { id: true, email: true, name: true, role: true, companyId: true },
  });
  if (!target) throw notFound("There is no such team member in your agency.");
  if (!canManageMember(actor, target)) {
    throw forbidden(
      target.id === actor.id ? `You cannot ${doing} for yourself.` : `Only an agency owner can ${doing} for an owner.`,
    );
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
    const { count } = await tx.user.updateMany({
      where: { id: target.id, companyId: actor.companyId, role: target.role, removedAt: null },
      data: { removedAt: now, sessionVersion: { increment: 1 } },
    });
    if (count !== 1) throw conflict("This team member was changed or removed meanwhile. Reload the page.");
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: "user_removed",
      targetId: target.id,
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
  await db().$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({
      where: { id: target.id, companyId: actor.companyId, removedAt: null },
      data: { passwordHash, mustChangePassword: true, sessionVersion: { increment: 1 } },
    });
    if (count !== 1) throw notFound("There is no such team member in your agency.");
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: "user_password_reset",
      targetId: target.id,
      details: { email: target.email },
    });
  });
  return { member: { id: target.id, name: target.name, email: target.email }, password };
}

export const passwordChangeSchema = z.object({
  currentPassword: z
    .string()
    .min(1, { error: "Enter your current password." })
    .max(200, { error: "Use a password of at most 200 characters." }),
  newPassword: passwordSchema,
});

/**
 * The signed-in person changes their own password. Every session of theirs ends (the version
 * moves on); the caller re-issues the current one with the returned version so it survives.
 * Wrong current passwords count towards the sign-in throttle, so a session cannot guess it.
 */
export async function changeOwnPassword(
  actor: Actor,
  input: z.input<typeof passwordChangeSchema>,
  now = new Date(),
): Promise<{ sessionVersion: number }> {
  const { currentPassword, newPassword } = passwordChangeSchema.parse(input);
  const attempt = `account-settings:${actor.id}`;
  const checked = await throttledSignIn(
    actor.email,
    attempt,
    async () => {
      const row = await db().user.findFirst({
        where: { id: actor.id, removedAt: null },
        select: { passwordHash: true },
      });
      if (!row) throw notFound("Your account no longer exists.");
      return (await verifyPassword(currentPassword, row.passwordHash)) ? row : null;
    },
    now,
  );
  if (!checked.ok && checked.reason === "throttled") {
    throw forbidden("Too many wrong passwords. For your safety, wait 15 minutes before trying again.");
  }
  if (!checked.ok) throw invalid("This is not your current password.", "currentPassword");
  if (newPassword === currentPassword) {
    throw invalid("Choose a new password, different from the current one.", "newPassword");
  }
  const passwordHash = await hashPassword(newPassword);
  return db().$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id: actor.id },
      data: { passwordHash, mustChangePassword: false, sessionVersion: { increment: 1 } },
      select: { sessionVersion: true },
    });
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: "user_password_changed",
      targetId: actor.id,
      details: { by: "self" },
    });
    return updated;
  });
}

export const operatorPasswordSchema = z.object({
  email: emailSchema,
  // As user:create: the operator's choice (SPEC.md sets no rule for the CLI).
  password: newUserSchema.shape.password,
});

/** The operator CLI's `user:set-password`: a new password; every session of the user ends. */
export async function setPasswordByOperator(input: z.input<typeof operatorPasswordSchema>): Promise<{ id: string }> {
  const { email, password } = operatorPasswordSchema.parse(input);
  const user = await db().user.findUnique({ where: { email }, select: { id: true, companyId: true, removedAt: true } });
  if (!user) throw notFound(`There is no user with the e-mail address ${email}.`);
  if (user.removedAt) throw invalid(`${email} was removed from their agency's team; they cannot sign in.`, "email");
  const passwordHash = await hashPassword(password);
  await db().$transaction(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { passwordHash, mustChangePassword: false, sessionVersion: { increment: 1 } },
    });
    await recordAudit(tx, {
      companyId: user.companyId,
      action: "user_password_changed",
      targetId: user.id,
      details: { by: "operator" },
    });
  });
  return { id: user.id };
}
