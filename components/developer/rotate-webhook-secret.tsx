"use client";

import { useActionState, useState } from "react";
import { FormMessage } from "@/components/ui/field";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { WebhookSecretPanel } from "./webhook-secret-panel";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** Rotate the webhook secret, confirmed; the new one is shown once, the old one signs 24 h more. */
export function RotateWebhookSecret({ action, appId }: { action: Action; appId: string }) {
  const [state, formAction] = useActionState(action, {});
  const [confirming, setConfirming] = useState(false);
  const secret = state.data?.webhookSecret as string | undefined;
  if (secret) {
    return (
      <div className="space-y-3">
        <FormMessage message={state.message} />
        <WebhookSecretPanel webhookSecret={secret} />
      </div>
    );
  }
  return (
    <div className="space-y-2">
      <FormMessage error={state.error} />
      {confirming ? (
        <form action={formAction} role="dialog" aria-label="Rotate the webhook secret?" className="space-y-2">
          <input type="hidden" name="appId" value={appId} />
          <p className="text-sm text-slate-700">
            A new secret signs every delivery from now on. The current one keeps signing too for 24 hours (each delivery
            then carries both signatures), so you have a day to put the new one in your receiver.
          </p>
          <div className="flex gap-2">
            <SubmitButton pendingLabel="Rotating…">Confirm</SubmitButton>
            <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary")}>
              Keep the current secret
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} className={buttonClass("secondary")}>
          Rotate webhook secret
        </button>
      )}
    </div>
  );
}
