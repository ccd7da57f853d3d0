"use client";

import { useRef, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { ConfirmDialog } from "@/components/private-integrations/confirm-dialog";
import { Modal } from "@/components/private-integrations/modal";
import type { FormAction } from "@/components/private-integrations/types";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/submit-button";

/**
 * A team member's `Reset password` and `Remove`, each confirmed with `Confirm` (SPEC.md: every
 * irreversible action). The one-time password is shown once, in a modal dialog; closing it forgets it.
 */
export function MemberActions({
  member,
  remove: unguardedRemove,
  resetPassword: unguardedResetPassword,
}: {
  member: { id: string; name: string; email: string };
  remove: FormAction;
  resetPassword: FormAction;
}) {
  const remove = useGuardedAction(unguardedRemove);
  const resetPassword = useGuardedAction(unguardedResetPassword);
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const [oneTimePassword, setOneTimePassword] = useState<string>();
  const resetRef = useRef<HTMLButtonElement>(null);

  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        ref={resetRef}
        type="button"
        onClick={() => setConfirmingReset(true)}
        className={buttonClass("secondary")}
      >
        Reset password
      </button>
      <button type="button" onClick={() => setConfirmingRemove(true)} className={buttonClass("danger")}>
        Remove
      </button>
      {confirmingReset ? (
        <ConfirmDialog
          title={`Reset the password of ${member.name}?`}
          tone="danger"
          action={resetPassword}
          fields={{ userId: member.id }}
          onDone={(result) => {
            setConfirmingReset(false);
            const password = result.data?.password;
            if (typeof password === "string") setOneTimePassword(password);
          }}
          onClose={() => setConfirmingReset(false)}
          returnFocus={() => resetRef.current}
        >
          <p>
            Their current password stops working and every session of theirs ends. A one-time password is shown once,
            here; {member.name} must choose a new password when signing in with it.
          </p>
        </ConfirmDialog>
      ) : null}
      {confirmingRemove ? (
        <ConfirmDialog
          title={`Remove ${member.name}?`}
          tone="danger"
          action={remove}
          fields={{ userId: member.id }}
          onDone={() => setConfirmingRemove(false)}
          onClose={() => setConfirmingRemove(false)}
          fallbackFocus={() => document.querySelector<HTMLElement>("h1")}
        >
          <p>
            {member.name} ({member.email}) can no longer sign in, and every session of theirs ends at its next request.
          </p>
          <p>Private integrations they created keep working and still say who created them.</p>
        </ConfirmDialog>
      ) : null}
      {oneTimePassword ? (
        <OneTimePasswordDialog
          member={member}
          password={oneTimePassword}
          onClose={() => setOneTimePassword(undefined)}
          returnFocus={() => resetRef.current}
        />
      ) : null}
    </div>
  );
}

function OneTimePasswordDialog({
  member,
  password,
  onClose,
  returnFocus,
}: {
  member: { name: string; email: string };
  password: string;
  onClose: () => void;
  returnFocus: () => HTMLElement | null;
}) {
  return (
    <Modal
      labelledBy="one-time-password-title"
      describedBy="one-time-password-note"
      onClose={onClose}
      returnFocus={returnFocus}
    >
      <div className="space-y-4 p-6">
        <h2 id="one-time-password-title" className="text-lg font-semibold">
          One-time password for {member.name}
        </h2>
        <p id="one-time-password-note" className="text-sm text-slate-700">
          Give it to {member.email} privately. It is shown only now; they must choose their own password when they sign
          in with it. Their other sessions have ended.
        </p>
        <code
          data-testid="one-time-password"
          className="block rounded-md bg-slate-100 px-3 py-2 font-mono text-base break-all text-slate-900"
        >
          {password}
        </code>
        <div className="flex flex-wrap justify-end gap-2">
          <CopyButton value={password} />
          <button type="button" onClick={onClose} className={buttonClass("primary")}>
            Done
          </button>
        </div>
      </div>
    </Modal>
  );
}
