"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { redeliverAsDeveloper } from "@/lib/webhooks/deliveries";

const schema = z.object({
  appId: z.string().min(1, "Say which app.").max(100),
  eventId: z.string().min(1, "Say which event to redeliver.").max(100),
});

/** The Redeliver button: puts the event back in the queue as a new retry series. */
export const redeliverEvent = actorAction(schema, async ({ appId, eventId }, actor) => {
  const now = new Date();
  await redeliverAsDeveloper(actor, { appId, eventId }, now);
  revalidatePath(`/developer/apps/${appId}/webhooks`);
  // Stays true after the attempt is made, so it never contradicts the row beside it.
  return { ok: true, message: `Redelivery requested at ${now.toISOString().slice(11, 19)} UTC.` };
});
