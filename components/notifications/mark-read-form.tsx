"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/auth/actions";
import { FormMessage } from "../ui/field";
import { SubmitButton } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** A one-button form (`Mark all as read`) with the server's answer beside it. */
export function MarkReadForm({ action, label }: { action: Action; label: string }) {
  const [state, formAction] = useActionState(action, {});
  return (
    <form action={formAction} className="flex items-center gap-3">
      <FormMessage error={state.error} message={state.message} />
      <SubmitButton pendingLabel="Marking…">{label}</SubmitButton>
    </form>
  );
}
