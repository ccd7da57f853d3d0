"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/auth/actions";
import { FormMessage, InputField } from "../ui/field";
import { SubmitButton } from "../ui/submit-button";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** Current and new password; both fields are emptied after every answer (passwords are never echoed). */
export function PasswordForm({ action }: { action: Action }) {
  const [state, formAction] = useActionState(action, {});
  const errors = state.fieldErrors ?? {};
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormMessage error={state.error} message={state.message} />
      <InputField
        id="current-password"
        label="Current password"
        error={errors.currentPassword}
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
      />
      <InputField
        id="new-password"
        label="New password"
        error={errors.newPassword}
        hint="At least 8 characters."
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
      />
      <SubmitButton pendingLabel="Changing…">Change password</SubmitButton>
    </form>
  );
}
