"use client";

import { useActionState, useState } from "react";
import type { ActionState } from "@/lib/auth/actions";
import { describedBy, Field, FormMessage, inputClass } from "../ui/field";
import { SubmitButton } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

export function AddMemberForm({
  action,
  roles,
  locations,
}: {
  action: Action;
  roles: { value: string; label: string }[];
  locations: { id: string; name: string }[];
}) {
  const [state, formAction] = useActionState(action, {});
  const [role, setRole] = useState("agency_user");
  // Each answer remounts the fields so they show what was kept (React resets a form after its action).
  const formKey = JSON.stringify(state.values ?? state.message ?? "");
  const errors = state.fieldErrors ?? {};
  const subAccountRole = role.startsWith("account_");

  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage error={state.error} message={state.message} />
      <div className="grid gap-4 sm:grid-cols-2" key={formKey}>
        <Field id="member-name" label="Name" error={errors.name}>
          <input
            {...describedBy("member-name", errors.name)}
            name="name"
            autoComplete="off"
            defaultValue={state.values?.name}
            className={inputClass}
          />
        </Field>
        <Field id="member-email" label="Email" error={errors.email}>
          <input
            {...describedBy("member-email", errors.email)}
            name="email"
            type="email"
            autoComplete="off"
            className={inputClass}
          />
        </Field>
        <Field
          id="member-password"
          label="Password"
          error={errors.password}
          hint="At least 8 characters. Share it with them privately."
        >
          <input
            {...describedBy("member-password", errors.password, "hint")}
            name="password"
            type="password"
            autoComplete="new-password"
            className={inputClass}
          />
        </Field>
        <Field id="member-role" label="Role" error={errors.role}>
          <select
            {...describedBy("member-role", errors.role)}
            name="role"
            value={role}
            onChange={(e) => setRole(e.target.value)}
            className={inputClass}
          >
            {roles.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {subAccountRole ? (
        <fieldset aria-describedby={errors.locationIds ? "member-locations-error" : undefined}>
          <legend className="text-sm font-medium text-slate-800">Sub-accounts</legend>
          <div className="mt-2 flex flex-wrap gap-x-6 gap-y-2">
            {locations.map((l) => (
              <label key={l.id} className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="locationIds[]" value={l.id} className="h-4 w-4 rounded border-slate-300" />
                {l.name}
              </label>
            ))}
          </div>
          {errors.locationIds ? (
            <p id="member-locations-error" className="mt-1 text-sm text-red-600">
              {errors.locationIds}
            </p>
          ) : null}
        </fieldset>
      ) : null}
      <SubmitButton pendingLabel="Adding…">Add team member</SubmitButton>
    </form>
  );
}
