"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { roleSchema } from "@/lib/accounts/roles";
import { removeTeamMember, resetTeamMemberPassword, teamMemberRefSchema, updateTeamMember } from "@/lib/accounts/team";
import { createUser, emailSchema, passwordSchema, personNameSchema } from "@/lib/accounts/users";
import { actorAction } from "@/lib/auth/actions";
import { setRequireTwoFactor } from "@/lib/auth/two-factor-policy";

const addSchema = z.object({
  name: personNameSchema,
  email: emailSchema,
  password: passwordSchema,
  role: roleSchema,
  locationIds: z.array(z.string()).default([]),
});

export const addTeamMember = actorAction(addSchema, async (input, actor) => {
  const user = await createUser({ ...input, companyId: actor.companyId }, actor);
  revalidatePath("/settings/team");
  return { ok: true, message: `${user.name} can now sign in as ${user.email}.` };
});

/** A member's permissions, role, removal and password reset need a recent authentication (`Confirm it's you`). */
const guarded = { confirmIdentity: true } as const;

export const changeRole = actorAction(
  z.object({ userId: z.string().min(1), role: roleSchema, locationIds: z.array(z.string()).default([]) }),
  async ({ userId, role, locationIds }, actor) => {
    // Agency roles reach every sub-account; the checkboxes only exist for sub-account roles.
    await updateTeamMember(actor, { userId, role, locationIds: role.startsWith("account_") ? locationIds : [] });
    revalidatePath("/settings/team");
    return { ok: true, message: "Role saved." };
  },
  guarded,
);

const permissionSchema = z.object({
  userId: z.string().min(1),
  permission: z.enum(["agencyPrivateIntegrations", "locationPrivateIntegrations"]),
  enabled: z.enum(["true", "false"]).transform((v) => v === "true"),
});

export const togglePermission = actorAction(
  permissionSchema,
  async ({ userId, permission, enabled }, actor) => {
    await updateTeamMember(actor, { userId, [permission]: enabled });
    revalidatePath("/", "layout");
    return { ok: true };
  },
  guarded,
);

export const removeMember = actorAction(
  teamMemberRefSchema,
  async (input, actor) => {
    const removed = await removeTeamMember(actor, input);
    revalidatePath("/settings/team");
    return { ok: true, message: `${removed.name} was removed from the team.` };
  },
  guarded,
);

/** The one-time password goes back to the dialog that shows it once; it is never logged or stored. */
export const resetMemberPassword = actorAction(
  teamMemberRefSchema,
  async (input, actor) => {
    const { member, password } = await resetTeamMemberPassword(actor, input);
    return { ok: true, message: `${member.name} has a one-time password.`, data: { password } };
  },
  guarded,
);

/** `Require two-factor authentication`: the owner's switch for the whole agency. */
export const switchRequireTwoFactor = actorAction(
  z.object({ enabled: z.enum(["true", "false"]) }),
  async ({ enabled }, actor) => {
    await setRequireTwoFactor(actor, enabled === "true");
    revalidatePath("/", "layout");
    return { ok: true };
  },
);
