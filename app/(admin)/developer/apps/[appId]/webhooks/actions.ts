"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { redeliverAsDeveloper } from "@/lib/webhooks/deliveries";
import { enableAsDeveloper, redeliverFailedAsDeveloper } from "@/lib/webhooks/endpoint-health";

const schema = z.object({
  appId: z.string().min(1, "Say which app.").max(100),
  eventId: z.string().min(1, "Say which event to redeliver.").max(100),
});

/** The Redeliver button: puts the event back in the queue as a new retry series. */
export const redeliverEvent = actorAction(schema, async ({ appId, eventId }, actor) => {
  const now = new Date();
  await redeliverAsDeveloper(actor, { appId, eventId }, now);
  revalidatePath(`/developer/apps/${appId}/webhooks`);
  // Stays true after the attempt is made, so it never contradicts the row beside it. The button
  // adds the time in the viewer's zone, which the server does not know.
  return { ok: true, message: "Redelivery requested.", data: { requestedAt: now.toISOString() } };
});

const appOnly = z.object({ appId: z.string().min(1, "Say which app.").max(100) });

/** `Enable` on a disabled endpoint: attempts resume and everything pending is delivered now. */
export const enableWebhookEndpointAction = actorAction(appOnly, async ({ appId }, actor) => {
  const pending = await enableAsDeveloper(actor, appId);
  revalidatePath(`/developer/apps/${appId}/webhooks`);
  return { ok: true, message: `Enabled. ${pending} pending event${pending === 1 ? "" : "s"} will be delivered now.` };
});

/** `Redeliver failed`: every event since the chosen time (UTC; the form converts the viewer's) whose delivery was given up, once. */
export const redeliverFailedAction = actorAction(
  appOnly.extend({
    since: z
      .string()
      .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/, "Choose a date and time.")
      .transform((v) => new Date(`${v}Z`))
      .refine((d) => !Number.isNaN(d.getTime()), "Choose a valid date and time."),
  }),
  async ({ appId, since }, actor) => {
    const count = await redeliverFailedAsDeveloper(actor, appId, since);
    revalidatePath(`/developer/apps/${appId}/webhooks`);
    return { ok: true, message: `${count} failed event${count === 1 ? "" : "s"} queued again.` };
  },
);
