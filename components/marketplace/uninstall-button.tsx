"use client";

import { useActionState, useState } from "react";
import { ActionMessage } from "@/components/ui/action-message";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** Uninstall, confirmed: every token of the installation stops working at once. */
export function UninstallButton({
  action,
  installationId,
  appName,
}: {
  action: Action;
  installationId: string;
  appName: string;
}) {
  const [state, formAction] = useActionState(action, {});
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <div className="flex flex-col items-end gap-1">
        <button
          type="button"
          onClick={() => setConfirming(true)}
          aria-label={`Uninstall ${appName}`}
          className={buttonClass("secondary")}
        >
          Uninstall
        </button>
        <ActionMessage error={state.error} />
      </div>
    );
  }
  return (
    <form
      action={formAction}
      role="dialog"
      aria-label={`Uninstall ${appName}?`}
      className="flex flex-wrap items-center justify-end gap-2"
    >
      <input type="hidden" name="installationId" value={installationId} />
      <span className="text-sm text-slate-700">Uninstall {appName}? Its tokens stop working at once.</span>
      <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary")}>
        Keep it
      </button>
      <SubmitButton variant="danger" pendingLabel="Uninstalling…">
        Confirm
      </SubmitButton>
    </form>
  );
}
