"use client";

import { useActionState, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage } from "@/components/ui/field";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import { ClientSecretPanel, WebhookSecretPanel } from "./secret-panel";

/** What the server action answers (lib's ActionState): the new secret in `data`, once. */
interface ReplaceState {
  message?: string;
  error?: string;
  data?: Record<string, unknown>;
}
type Action = (prev: ReplaceState, formData: FormData) => Promise<ReplaceState>;

const kinds = {
  client: {
    field: "clientSecret",
    open: "Regenerate secret",
    question: "Regenerate the client secret?",
    consequence: "The current secret stops working at once. Every server using it must be updated with the new one.",
    confirmVariant: "danger",
    pendingLabel: "Regenerating…",
  },
  webhook: {
    field: "webhookSecret",
    open: "Rotate webhook secret",
    question: "Rotate the webhook secret?",
    consequence:
      "A new secret signs every delivery from now on. The current one keeps signing too for 24 hours (each delivery then carries both signatures), so you have a day to put the new one in your receiver.",
    confirmVariant: "primary",
    pendingLabel: "Rotating…",
  },
} as const;

/**
 * Replace an app's client secret (the old one stops at once) or webhook secret (the old one signs
 * 24 h more), confirmed first; the new one is shown once.
 */
export function ReplaceSecret(
  props: { action: Action; appId: string } & ({ kind: "client"; clientId: string } | { kind: "webhook" }),
) {
  const text = kinds[props.kind];
  // A new secret is shown once: the server may first ask `Confirm it's you`.
  const [state, formAction] = useActionState(useGuardedAction(props.action as FormAction) as Action, {});
  const [confirming, setConfirming] = useState(false);
  const secret = state.data?.[text.field];
  if (typeof secret === "string") {
    return (
      <div className="space-y-3">
        <FormMessage message={state.message} />
        {props.kind === "client" ? (
          <ClientSecretPanel clientId={props.clientId} clientSecret={secret} />
        ) : (
          <WebhookSecretPanel webhookSecret={secret} />
        )}
      </div>
    );
  }
  return (
    <div className="space-y-2">
      <FormMessage error={state.error} />
      {confirming ? (
        <form action={formAction} role="dialog" aria-label={text.question} className="space-y-2">
          <input type="hidden" name="appId" value={props.appId} />
          <p className="text-sm text-slate-700">{text.consequence}</p>
          <div className="flex gap-2">
            <SubmitButton variant={text.confirmVariant} pendingLabel={text.pendingLabel}>
              Confirm
            </SubmitButton>
            <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary")}>
              Keep the current secret
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} className={buttonClass("secondary")}>
          {text.open}
        </button>
      )}
    </div>
  );
}
