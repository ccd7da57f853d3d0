"use client";

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { buttonClass } from "@/components/ui/submit-button";
import { Modal } from "./modal";

/** The dialog's Copy button, where the keyboard goes whenever a new token is shown. */
export const TOKEN_COPY_BUTTON = "pit-token-copy";

export interface RevealedToken {
  token: string;
  integrationId: string;
  integrationName: string;
  /** What else the person should know, e.g. until when the old token keeps working. */
  note?: string;
  /** The idempotency key of the answer that carried it: the server is told once it is shown. */
  confirmKey?: string;
}

/**
 * The only time a token is shown: a dialog with the whole token, a Copy button and a warning that
 * it cannot be seen again. Non-modal and in the page's flow, so the integration's other buttons stay
 * usable while it is open (rotating right after creating needs no extra step). Focus moves to Copy;
 * `Done` or Escape closes it, which drops the token from memory (the parent forgets it). Before
 * `Copy` was used, closing first asks `The token will not be shown again` (`Go back`, `Close anyway`).
 */
export function TokenDialog({
  revealed,
  onClose,
  onShown,
  returnFocus,
}: {
  revealed: RevealedToken;
  onClose: () => void;
  /** Called once the token is on screen (its row stops reading `Token never shown`). */
  onShown?: () => void;
  returnFocus?: () => HTMLElement | null;
}) {
  const tokenRef = useRef<HTMLElement>(null);
  const copyRef = useRef<HTMLButtonElement>(null);
  const [copyState, setCopyState] = useState<"idle" | "copied" | "selected">("idle");
  const [asking, setAsking] = useState(false);
  // Closing before Copy was used asks first: the token cannot be shown again.
  const requestClose = () => (copyState === "idle" ? setAsking(true) : onClose());
  const onCloseRef = useRef(requestClose);
  onCloseRef.current = requestClose;
  const returnRef = useRef(returnFocus);
  returnRef.current = returnFocus;
  const shownRef = useRef(onShown);
  shownRef.current = onShown;

  useEffect(() => {
    // After the commit that put the token on screen; a new token is a new dialog (its key).
    shownRef.current?.();
  }, []);

  useLayoutEffect(() => {
    copyRef.current?.focus();
    return () => {
      // After React has finished this commit, so a re-rendered list is in place.
      // Unless a newer token replaced this one: its dialog has the focus already.
      requestAnimationFrame(() => {
        if (!document.getElementById(TOKEN_COPY_BUTTON)) returnRef.current?.()?.focus();
      });
    };
  }, []);

  useEffect(() => {
    // Escape closes it, unless a modal (a confirmation) is open on top and takes the key.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || document.querySelector("dialog:modal")) return;
      // After this key's own handling: a confirmation opened now would take this Escape and close.
      event.preventDefault();
      window.setTimeout(() => onCloseRef.current(), 0);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  function selectToken() {
    const node = tokenRef.current;
    const selection = window.getSelection();
    if (!node || !selection) return;
    const range = document.createRange();
    range.selectNodeContents(node);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  async function copy() {
    try {
      await navigator.clipboard.writeText(revealed.token);
      setCopyState("copied");
    } catch {
      // No clipboard permission (some browsers, embedded views): select it so Ctrl+C copies it.
      selectToken();
      setCopyState("selected");
    }
  }

  return (
    <dialog
      open
      aria-labelledby="pit-token-title"
      aria-describedby="pit-token-warning"
      className="static mb-6 w-full max-w-none rounded-xl bg-surface p-0 text-slate-900 shadow-md ring-2 ring-amber-300"
    >
      <div className="space-y-4 p-6">
        <div>
          <h2 id="pit-token-title" className="text-lg font-semibold">
            Your new token for “{revealed.integrationName}”
          </h2>
          <p
            id="pit-token-warning"
            className="mt-3 flex gap-2 rounded-md bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900 ring-1 ring-amber-200"
          >
            <span aria-hidden="true">⚠</span>
            <span>Copy this token now. You won't be able to see it again.</span>
          </p>
        </div>
        <div className="flex items-stretch gap-2">
          <code
            ref={tokenRef}
            data-testid="pit-token"
            className="min-w-0 flex-1 rounded-md bg-slate-900 px-3 py-2.5 font-mono text-sm break-all text-emerald-300 select-all"
          >
            {revealed.token}
          </code>
          <button
            id={TOKEN_COPY_BUTTON}
            ref={copyRef}
            type="button"
            onClick={copy}
            className={buttonClass("secondary")}
          >
            Copy
          </button>
        </div>
        <p role="status" aria-live="polite" className="min-h-5 text-sm text-emerald-700">
          {copyState === "copied"
            ? "✓ Copied to the clipboard."
            : copyState === "selected"
              ? "The token is selected: press Ctrl+C (⌘C on a Mac) to copy it."
              : ""}
        </p>
        <div className="space-y-1 text-sm text-slate-600">
          {revealed.note ? <p>{revealed.note}</p> : null}
          <p>
            Send it as <code className="font-mono text-xs">Authorization: Bearer pit-…</code> and keep it in a secret
            store, never in code. If it is lost, rotate it.
          </p>
        </div>
        <div className="flex justify-end">
          <button type="button" onClick={requestClose} className={buttonClass("primary")}>
            Done
          </button>
        </div>
      </div>
      {asking ? (
        <Modal
          role="alertdialog"
          labelledBy="pit-token-close-title"
          describedBy="pit-token-close-body"
          onClose={() => setAsking(false)}
          returnFocus={() => copyRef.current}
        >
          <div className="space-y-4 p-6">
            <h2 id="pit-token-close-title" className="text-lg font-semibold">
              The token will not be shown again
            </h2>
            <p id="pit-token-close-body" className="text-sm text-slate-700">
              You have not used Copy. Once this closes, nobody can see this token again; if it was not saved, you will
              have to rotate it.
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              {/* biome-ignore lint/a11y/noAutofocus: in a modal dialog, focus starts on the safe choice */}
              <button type="button" autoFocus onClick={() => setAsking(false)} className={buttonClass("primary")}>
                Go back
              </button>
              <button type="button" onClick={onClose} className={buttonClass("danger")}>
                Close anyway
              </button>
            </div>
          </div>
        </Modal>
      ) : null}
    </dialog>
  );
}
