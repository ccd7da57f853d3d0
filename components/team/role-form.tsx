"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/actions";
import { inputClass } from "../ui/field";
import { SubmitButton } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

export function RoleForm({
  action,
  userId,
  role,
  roles,
  label,
}: {
  action: Action;
  userId: string;
  role: string;
  roles: { value: string; label: string }[];
  label: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const error = state.error ?? state.fieldErrors?.role ?? state.fieldErrors?.locationIds;
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="userId" value={userId} />
      <select name="role" defaultValue={role} aria-label={label} className={`${inputClass} w-48`}>
        {roles.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </select>
      <SubmitButton variant="secondary" pendingLabel="Saving…">
        Save role
      </SubmitButton>
      {error ? (
        <p role="alert" className="w-full text-sm text-red-600">
          {error}
        </p>
      ) : state.message ? (
        <p role="status" className="w-full text-sm text-emerald-700">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
