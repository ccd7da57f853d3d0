"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { markNotificationsRead } from "@/lib/reminders/notifications";

/** `Mark all as read`: the signed-in person's own notifications only. */
export const markAllNotificationsRead = actorAction(z.object({}), async (_input, actor) => {
  const count = await markNotificationsRead(actor.id, new Date());
  revalidatePath("/", "layout");
  return {
    ok: true,
    message: count === 1 ? "1 notification marked as read." : `${count} notifications marked as read.`,
  };
});
