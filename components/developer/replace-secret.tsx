"use client";

import { useActionState, useId, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage } from "@/components/ui/field";
import { useForgetWhenShown, useOncePerPress } from "@/components/ui/once-per-press";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import {
  type ClientSecretOverlap,
  clientSecretOverlapLabels,
  clientSecretOverlaps,
  DEFAULT_CLIENT_SECRET_OVERLAP,
} from "@/lib/apps/client-secret-overlap";
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
    open: "Generate new client secret",
    question: "Generate a new client secret?",
    consequence:
      "A new secret is made and shown once. The current one keeps working beside it for the time you choose, so your servers can switch over without an outage; you can revoke it sooner.",
    confirmVariant: "primary",
    pendingLabel: "Generating…",
    made: "the same client secret",
  },
  webhook: {
    field: "webhookSecret",
    open: "Rotate webhook secret",
    question: "Rotate the webhook secret?",
    consequence:
      "A new secret signs every delivery from now on. The current one keeps signing too for 24 hours (each delivery then carries both signatures), so you have a day to put the new one in your receiver.",
    confirmVariant: "primary",
    pendingLabel: "Rotating…",
    made: "the same webhook secret",
  },
} as const;

/**
 * Replace an app's client secret (the old one keeps working for the overlap chosen: 1 hour, 24
 * hours or 7 days) or webhook secret (the old one signs 24 h more), confirmed first; the new one
 * is shown once. Each opening of the confirmation sends its own idempotency key: `Confirm` pressed
 * again after a lost answer shows the same secret and never rotates twice (a second rotation
 * would end the overlap of the secret the app's servers still use).
 */
export function ReplaceSecret(
  props: {
    action: Action;
    /** Tells the server the new secret was shown, so it forgets its answer. */
    forgetShown?: Action;
    appId: string;
  } & ({ kind: "client"; clientId: string } | { kind: "webhook" }),
) {
  const text = kinds[props.kind];
  const once = useOncePerPress(props.action as FormAction, "Press Confirm again", text.made);
  // A new secret is shown once: the server may first ask `Confirm it's you`.
  const [state, formAction] = useActionState(useGuardedAction(once.action) as Action, {});
  const [confirming, setConfirming] = useState(false);
  const [overlap, setOverlap] = useState<ClientSecretOverlap>(DEFAULT_CLIENT_SECRET_OVERLAP);
  const legendId = useId();
  const secret = state.data?.[text.field];
  useForgetWhenShown(props.forgetShown as FormAction | undefined, once.key, typeof secret === "string");
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
          {props.kind === "client" ? (
            <fieldset className="space-y-1 text-sm" aria-describedby={`${legendId}-until`}>
              <legend className="font-medium text-slate-800">How long does the current secret keep working?</legend>
              <div className="flex flex-wrap gap-x-4 gap-y-1">
                {clientSecretOverlaps.map((choice) => (
                  <label key={choice} className="flex min-h-6 items-center gap-1.5 text-slate-800">
                    <input
                      type="radio"
                      name="overlap"
                      value={choice}
                      checked={overlap === choice}
                      onChange={() => setOverlap(choice)}
                    />
                    {clientSecretOverlapLabels[choice]}
                  </label>
                ))}
              </div>
              <p id={`${legendId}-until`} className="text-slate-600">
                It stops {clientSecretOverlapLabels[overlap]} after you confirm, or when you revoke it.
              </p>
            </fieldset>
          ) : null}
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
        <button
          type="button"
          onClick={() => {
            once.renew();
            setConfirming(true);
          }}
          className={buttonClass("secondary")}
        >
          {text.open}
        </button>
      )}
    </div>
  );
}
