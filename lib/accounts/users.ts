import { z } from "zod";
import { dummyPasswordHash, hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db, type Tx } from "@/lib/db/client";
import { runHotStatement } from "@/lib/db/hot-statement";
import { Prisma } from "@/lib/generated/prisma/client";
import { conflict, forbidden, invalid, notFound } from "@/lib/refusal";
import { recordAudit } from "./audit";
import type { Actor } from "./permissions";
import { defaultPermissions, isAgencyAdmin, isAgencyRole, type Role, roleSchema } from "./roles";

/* The people who sign in: creating one, reading who a session or a password belongs to, and the
   operator's password reset. What owners and admins change on their team is ./team.ts. */

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

/** The columns an `Actor` is read from (also by ./team.ts and lib/reminders/check.ts). */
export const actorSelect = {
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

export function toActor(row: ActorRow): Actor {
  const { memberships, ...rest } = row;
  return { ...rest, locationIds: memberships.map((m) => m.locationId) };
}

/** The sub-accounts a member of this role is given: none for agency roles, only the agency's own. */
export async function checkLocations(companyId: string, role: Role, locationIds: string[]): Promise<string[]> {
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

/**
 * Who a session belongs to, or null when its person was removed or its credentials changed since.
 * Read on every signed-in request, so in one statement and one value, straight on the pool
 * (lib/db/hot-statement.ts): Prisma's relations are a query each (the agency, the second factors,
 * the sub-accounts), and its reading of a raw answer costs more than pg's.
 */
export async function loadSignedIn(
  userId: string,
  sessionVersion: number,
): Promise<{ actor: Actor; mustChangePassword: boolean; mustSetUpTwoFactor: boolean } | null> {
  const statement = Prisma.sql`
    SELECT json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'role', u.role, 'companyId', u."companyId",
      'agencyPrivateIntegrations', u."agencyPrivateIntegrations",
      'locationPrivateIntegrations', u."locationPrivateIntegrations",
      'locationIds', COALESCE((SELECT json_agg(m."locationId" ORDER BY m."locationId") FROM "LocationMembership" m
        WHERE m."userId" = u.id), '[]'),
      'mustChangePassword', u."mustChangePassword", 'requireTwoFactor', c."requireTwoFactor",
      'hasSecondFactor', EXISTS (SELECT 1 FROM "TotpFactor" t WHERE t."userId" = u.id AND t."confirmedAt" IS NOT NULL)
        OR EXISTS (SELECT 1 FROM "Passkey" p WHERE p."userId" = u.id)) AS "signedIn"
    FROM "User" u JOIN "Company" c ON c.id = u."companyId"
    WHERE u.id = ${userId} AND u."sessionVersion" = ${sessionVersion} AND u."removedAt" IS NULL`;
  const [row] = await runHotStatement<{ signedIn: SignedInRow }>(statement.text, statement.values);
  if (!row) return null;
  const { mustChangePassword, requireTwoFactor, hasSecondFactor, ...actor } = row.signedIn;
  return { actor, mustChangePassword, mustSetUpTwoFactor: requireTwoFactor && !hasSecondFactor };
}

interface SignedInRow extends Actor {
  mustChangePassword: boolean;
  requireTwoFactor: boolean;
  hasSecondFactor: boolean;
}

/** The agency's team as the Team screen lists it: removed members are no longer in it. */
/**
 * The agency's people of `ids` by id, removed members included (they still name what they created
 * and did), for the screens that name them.
 */
export async function membersById(
  companyId: string,
  ids: Iterable<string>,
  client: Tx = db(),
): Promise<Map<string, { id: string; name: string; email: string; removed: boolean }>> {
  const unique = [...new Set(ids)];
  const users = unique.length
    ? await client.user.findMany({
        where: { id: { in: unique }, companyId },
        select: { id: true, name: true, email: true, removedAt: true },
      })
    : [];
  return new Map(users.map(({ removedAt, ...user }) => [user.id, { ...user, removed: removedAt !== null }]));
}

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
