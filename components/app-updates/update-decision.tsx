"use client";

import { useActionState } from "react";
import { ActionMessage } from "@/components/ui/action-message";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** `Approve` / `Decline` of an app's update on the `Review update` screen. */
export function UpdateDecision({
  approve,
  decline,
  installationId,
}: {
  approve: Action;
  decline: Action;
  installationId: string;
}) {
  const [approved, approveAction] = useActionState(approve, {});
  const [declined, declineAction] = useActionState(decline, {});
  const error = approved.error ?? declined.error;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <form action={approveAction}>
        <input type="hidden" name="installationId" value={installationId} />
        <SubmitButton pendingLabel="Approving…">Approve</SubmitButton>
      </form>
      <form action={declineAction}>
        <input type="hidden" name="installationId" value={installationId} />
        <SubmitButton variant="secondary" pendingLabel="Declining…">
          Decline
        </SubmitButton>
      </form>
      <ActionMessage error={error} />
    </div>
  );
}
