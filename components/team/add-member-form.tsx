"use client";

import { useActionState, useState } from "react";
import type { ActionState } from "@/lib/auth/actions";
import { Choice, ChoiceGroup, checkboxClass, FormMessage, InputField, SelectField } from "../ui/field";
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
        <InputField
          id="member-name"
          label="Name"
          error={errors.name}
          name="name"
          autoComplete="off"
          defaultValue={state.values?.name}
        />
        <InputField id="member-email" label="Email" error={errors.email} name="email" type="email" autoComplete="off" />
        <InputField
          id="member-password"
          label="Password"
          error={errors.password}
          hint="At least 8 characters. Share it with them privately."
          name="password"
          type="password"
          autoComplete="new-password"
        />
        <SelectField
          id="member-role"
          label="Role"
          error={errors.role}
          name="role"
          value={role}
          onChange={(e) => setRole(e.target.value)}
        >
          {roles.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </SelectField>
      </div>
      {subAccountRole ? (
        <ChoiceGroup
          legend="Sub-accounts"
          errorId="member-locations-error"
          error={errors.locationIds}
          errorClassName="mt-1 text-sm text-red-600"
        >
          <div className="mt-2 flex flex-wrap gap-x-6 gap-y-2">
            {locations.map((l) => (
              <Choice key={l.id} type="checkbox" name="locationIds[]" value={l.id} className={checkboxClass}>
                {l.name}
              </Choice>
            ))}
          </div>
        </ChoiceGroup>
      ) : null}
      <SubmitButton pendingLabel="Adding…">Add team member</SubmitButton>
    </form>
  );
}
