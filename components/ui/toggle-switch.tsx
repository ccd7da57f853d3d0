"use client";

import { useActionState, useOptimistic, useTransition } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { ActionMessage } from "@/components/ui/action-message";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/**
 * An on/off switch that saves on click through a server action. It flips at once, and flips back
 * with the server's message if the change was refused. Its state is said in words beside the track
 * (`On`, `Off`), hidden from screen readers, which hear the switch's name and its checked state.
 */
export function ToggleSwitch({
  label,
  checked,
  action,
  fields,
  disabled,
  description,
}: {
  label: string;
  checked: boolean;
  action: Action;
  /** Hidden form fields identifying what is switched (the new value is sent as `enabled`). */
  fields: Record<string, string>;
  disabled?: boolean;
  description?: string;
}) {
  // A switch that changes a credential's reach may first ask `Confirm it's you` (the server says when).
  const [state, formAction] = useActionState(useGuardedAction(action), {});
  const [optimistic, setOptimistic] = useOptimistic(checked);
  const [pending, startTransition] = useTransition();

  function toggle() {
    const next = !optimistic;
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set("enabled", String(next));
    startTransition(() => {
      setOptimistic(next);
      formAction(form);
    });
  }

  return (
    <div className="flex items-start justify-between gap-4">
      <div>
        <span className="text-sm font-medium text-slate-800">{label}</span>
        {description ? <p className="text-xs text-slate-500">{description}</p> : null}
        <ActionMessage error={state.error} />
      </div>
      <button
        type="button"
        role="switch"
        aria-checked={optimistic}
        aria-label={label}
        aria-busy={pending}
        disabled={disabled || pending}
        onClick={toggle}
        className="inline-flex min-h-6 shrink-0 cursor-pointer items-center gap-2 rounded-full disabled:cursor-not-allowed disabled:opacity-50"
      >
        <span
          aria-hidden="true"
          data-switch-part="track"
          className={`inline-flex h-6 w-11 shrink-0 rounded-full border-2 transition-colors ${optimistic ? "border-switch-on bg-switch-on" : "border-switch-off bg-switch-off"}`}
        >
          <span
            data-switch-part="thumb"
            className={`pointer-events-none inline-block h-5 w-5 transform rounded-full bg-switch-thumb shadow ring-0 transition ${optimistic ? "translate-x-5" : "translate-x-0"}`}
          />
        </span>
        <span aria-hidden="true" className="w-6 text-left text-sm font-medium text-slate-700">
          {optimistic ? "On" : "Off"}
        </span>
      </button>
    </div>
  );
}
