"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useState, useTransition } from "react";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { newIdempotencyKey } from "./idempotency-key";
import { Modal } from "./modal";
import { Spinner } from "./spinner";
import type { FormAction } from "./types";

/**
 * "Are you sure?" that says exactly what will happen, then runs the server action. Its confirm
 * button is always named `Confirm`; refusals are shown inside the dialog. A dropped connection or a
 * server error never becomes an error page: the dialog stays, says what went wrong and offers
 * `Retry`; after a refusal the screen reads the integrations again to show the state they are in.
 */
export const connectionFailed =
  "The request did not reach the server or it failed there (a dropped connection?). Nothing you can see has changed yet; check the connection and retry.";
/**
 * The same, for a button whose retry is safe (it sends the same idempotency key): `press` names it,
 * `made` what comes back (the token, the secret, the codes).
 */
export function answerLost(press: string, made = "the same token"): string {
  return `The request did not reach the server, or its answer did not come back (a dropped connection?), so it may have been done or not. ${press}: if it was done, you get what it did, ${made} included; it is never done twice.`;
}
export function ConfirmDialog({
  title,
  children,
  action,
  fields,
  tone = "primary",
  idempotent = false,
  onDone,
  onClose,
  fallbackFocus,
  returnFocus,
}: {
  title: string;
  children: ReactNode;
  action: FormAction;
  fields: Record<string, string>;
  tone?: "primary" | "danger";
  /**
   * Sends an idempotency key, one while the dialog is open (the rotations): `Retry` after a lost
   * answer gets the first answer back, the same token, and never rotates twice. A string names
   * what comes back instead of the token.
   */
  idempotent?: boolean | string;
  /** With `idempotent`, the key the answer came under (to tell the server it was shown). */
  onDone: (result: ActionState, idempotencyKey?: string) => void;
  onClose: () => void;
  fallbackFocus?: () => HTMLElement | null;
  returnFocus?: () => HTMLElement | null;
}) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  const [failed, setFailed] = useState(false);
  const router = useRouter();
  const [idempotencyKey] = useState(newIdempotencyKey);

  function confirm() {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    if (idempotent) form.set("idempotencyKey", idempotencyKey);
    setError(undefined);
    startTransition(async () => {
      let result: ActionState;
      try {
        result = await action({}, form);
      } catch {
        setFailed(true);
        setError(
          idempotent
            ? answerLost("Press Retry", typeof idempotent === "string" ? idempotent : undefined)
            : connectionFailed,
        );
        return;
      }
      setFailed(false);
      if (result.ok) onDone(result, idempotent ? idempotencyKey : undefined);
      else {
        setError(result.error ?? Object.values(result.fieldErrors ?? {})[0] ?? "That did not work; try again.");
        // The refusal may come from a change made elsewhere (expired, rotated, deleted): show it.
        router.refresh();
      }
    });
  }

  return (
    <Modal
      role="alertdialog"
      labelledBy="confirm-title"
      describedBy="confirm-body"
      onClose={onClose}
      preventEscape={pending}
      fallbackFocus={fallbackFocus}
      returnFocus={returnFocus}
    >
      <div className="space-y-4 p-6">
        <h2 id="confirm-title" className="text-lg font-semibold">
          {title}
        </h2>
        <div id="confirm-body" className="space-y-2 text-sm text-slate-700">
          {children}
        </div>
        {error ? (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200">
            {error}
          </p>
        ) : null}
        <div className="flex flex-wrap justify-end gap-2">
          {/* In a modal dialog, focus starts on the safe choice (Modal focuses data-autofocus). */}
          <button
            type="button"
            data-autofocus
            onClick={onClose}
            disabled={pending}
            className={buttonClass("secondary")}
          >
            Cancel
          </button>
          <button
            type="button"
            onClick={confirm}
            disabled={pending}
            aria-busy={pending}
            className={buttonClass(tone === "danger" ? "danger" : "primary")}
          >
            {pending ? <Spinner /> : null}
            {failed ? "Retry" : "Confirm"}
          </button>
        </div>
      </div>
    </Modal>
  );
}
