"use client";

import { useActionState, useOptimistic, useTransition } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { ActionMessage } from "@/components/ui/action-message";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/**
 * An on/off switch that saves on click through a server action. It flips at once, and flips back
 * with the server's message if the change was refused.
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
        className={`relative inline-flex h-6 w-11 shrink-0 cursor-pointer rounded-full border-2 border-transparent transition-colors disabled:cursor-not-allowed disabled:opacity-50 ${optimistic ? "bg-brand-600" : "bg-slate-300"}`}
      >
        <span
          aria-hidden="true"
          className={`pointer-events-none inline-block h-5 w-5 transform rounded-full bg-white shadow ring-0 transition ${optimistic ? "translate-x-5" : "translate-x-0"}`}
        />
      </button>
    </div>
  );
}
