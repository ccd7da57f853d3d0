"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { changeOwnPassword, passwordChangeSchema } from "@/lib/auth/password-change";
import { renewSession } from "@/lib/auth/session";
import { setTokenEmails } from "@/lib/reminders/notifications";

/** Every other session of the person ends; this browser's is re-issued so it goes on. */
export const changePassword = actorAction(
  passwordChangeSchema,
  async (input, actor) => {
    const { sessionVersion } = await changeOwnPassword(actor, input);
    await renewSession(sessionVersion);
    revalidatePath("/", "layout");
    return { ok: true, message: "Your password was changed. You were signed out everywhere else." };
  },
  { whilePasswordMustChange: true },
);

/** `Email me about my tokens`: the signed-in person's own switch, nobody else's. */
export const switchTokenEmails = actorAction(z.object({ enabled: z.enum(["true", "false"]) }), async (input, actor) => {
  await setTokenEmails(actor.id, input.enabled === "true");
  revalidatePath("/settings/account");
  return { ok: true };
});
