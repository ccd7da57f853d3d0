"use client";

import { useActionState, useState } from "react";
import { FormMessage } from "@/components/ui/field";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { SecretPanel } from "./secret-panel";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** Regenerate the client secret, confirmed; the new one is shown once. */
export function RegenerateSecret({ action, appId, clientId }: { action: Action; appId: string; clientId: string }) {
  const [state, formAction] = useActionState(action, {});
  const [confirming, setConfirming] = useState(false);
  const secret = state.data?.clientSecret as string | undefined;
  if (secret) {
    return (
      <div className="space-y-3">
        <FormMessage message={state.message} />
        <SecretPanel clientId={clientId} clientSecret={secret} />
      </div>
    );
  }
  return (
    <div className="space-y-2">
      <FormMessage error={state.error} />
      {confirming ? (
        <form action={formAction} role="dialog" aria-label="Regenerate the client secret?" className="space-y-2">
          <input type="hidden" name="appId" value={appId} />
          <p className="text-sm text-slate-700">
            The current secret stops working at once. Every server using it must be updated with the new one.
          </p>
          <div className="flex gap-2">
            <SubmitButton variant="danger" pendingLabel="Regenerating…">
              Confirm
            </SubmitButton>
            <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary")}>
              Keep the current secret
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} className={buttonClass("secondary")}>
          Regenerate secret
        </button>
      )}
    </div>
  );
}
