"use client";

import { useActionState, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { ActionMessage } from "@/components/ui/action-message";
import type { ActionState } from "@/lib/auth/actions";
import { Choice, checkboxClass, inputClass } from "../ui/field";
import { SubmitButton } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** A member's role, and for sub-account roles the sub-accounts they work in. */
export function RoleForm({
  action,
  userId,
  role,
  roles,
  label,
  locations,
  locationIds,
}: {
  action: Action;
  userId: string;
  role: string;
  roles: { value: string; label: string }[];
  label: string;
  locations: { id: string; name: string }[];
  locationIds: string[];
}) {
  const [state, formAction] = useActionState(useGuardedAction(action), {});
  const [chosenRole, setChosenRole] = useState(role);
  const error = state.error ?? state.fieldErrors?.role ?? state.fieldErrors?.locationIds;
  const subAccountRole = chosenRole.startsWith("account_");
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="userId" value={userId} />
      <select
        name="role"
        value={chosenRole}
        onChange={(e) => setChosenRole(e.target.value)}
        aria-label={label}
        className={`${inputClass} w-48`}
      >
        {roles.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </select>
      <SubmitButton variant="secondary" pendingLabel="Saving…">
        Save role
      </SubmitButton>
      {subAccountRole ? (
        <fieldset className="w-full">
          <legend className="text-xs font-medium text-slate-600">Sub-accounts</legend>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {locations.map((l) => (
              <Choice
                key={l.id}
                labelClassName="flex items-center gap-1.5 text-sm"
                type="checkbox"
                name="locationIds[]"
                value={l.id}
                defaultChecked={locationIds.includes(l.id)}
                className={checkboxClass}
              >
                {l.name}
              </Choice>
            ))}
          </div>
        </fieldset>
      ) : null}
      <ActionMessage error={error} message={state.message} className="w-full text-sm" />
    </form>
  );
}
