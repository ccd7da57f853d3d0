"use client";

import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import { ActionMessage } from "@/components/ui/action-message";
import { viewerTimeZone } from "@/components/ui/relative-time";
import type { ActionState } from "@/lib/auth/actions";
import { formatTimeOfDay } from "@/lib/dates/format";
import { buttonClass } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** One event's Redeliver button, with the server's answer beside it. */
export function RedeliverButton({
  action,
  appId,
  eventId,
  describedById,
}: {
  action: Action;
  appId: string;
  eventId: string;
  /** The element naming the event (its webhook-id), so a screen reader says which event the button sends. */
  describedById?: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const error = state.error ?? Object.values(state.fieldErrors ?? {})[0];
  // Answered after a press, so in the browser: the time in the viewer's zone (a new one each press).
  const at = typeof state.data?.requestedAt === "string" ? state.data.requestedAt : null;
  const message = at ? `Redelivery requested at ${formatTimeOfDay(at, viewerTimeZone())}.` : state.message;
  return (
    <form action={formAction} className="flex flex-col items-start gap-1">
      <input type="hidden" name="appId" value={appId} />
      <input type="hidden" name="eventId" value={eventId} />
      <Submit describedById={describedById} />
      <ActionMessage error={error} message={message} className="text-xs" />
    </form>
  );
}

function Submit({ describedById }: { describedById?: string }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      disabled={pending}
      aria-disabled={pending}
      aria-describedby={describedById}
      className={`${buttonClass("secondary")} px-2.5 py-1 text-xs`}
    >
      {pending ? "Redelivering…" : "Redeliver"}
    </button>
  );
}
