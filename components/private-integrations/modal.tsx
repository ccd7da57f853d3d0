"use client";

import { type ReactNode, useLayoutEffect, useRef } from "react";

type FocusTarget = () => HTMLElement | null | undefined;

/**
 * A native modal <dialog>, open while mounted: the browser traps focus and makes the page behind it
 * inert, Escape closes it. On closing, focus goes to `returnFocus` when given, else back to the
 * control that opened it or, when that control is gone, to `fallbackFocus`.
 */
export function Modal({
  labelledBy,
  describedBy,
  onClose,
  fallbackFocus,
  returnFocus,
  children,
  className = "",
  role,
  preventEscape = false,
  onEscape,
}: {
  labelledBy: string;
  describedBy?: string;
  onClose: () => void;
  fallbackFocus?: FocusTarget;
  /** Where focus goes on closing, ahead of the opener (e.g. after an action that removes the opener). */
  returnFocus?: FocusTarget;
  children: ReactNode;
  className?: string;
  role?: "dialog" | "alertdialog";
  /** While true (an action in flight), Escape does not close it. */
  preventEscape?: boolean;
  /**
   * Escape calls this instead of closing (a form that asks `Discard changes?` first). Taken on the
   * key itself, before the browser's close request, which it may refuse to let a page cancel twice.
   */
  onEscape?: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const onCloseRef = useRef(onClose);
  const fallbackRef = useRef(fallbackFocus);
  onCloseRef.current = onClose;
  fallbackRef.current = fallbackFocus;
  const returnRef = useRef(returnFocus);
  returnRef.current = returnFocus;
  const preventEscapeRef = useRef(preventEscape);
  preventEscapeRef.current = preventEscape;
  const onEscapeRef = useRef(onEscape);
  onEscapeRef.current = onEscape;

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const active = document.activeElement;
    // A form that opened it may have just been removed, leaving focus on <body>: no opener then.
    const opener = active instanceof HTMLElement && active !== document.body ? active : null;
    if (!dialog.open) dialog.showModal();
    // showModal() focuses the first focusable element (a date in the text, whose exact time then
    // shows): autoFocus ran while the dialog was closed and could not take it. `data-autofocus` does.
    dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    const handleClose = () => onCloseRef.current();
    const handleCancel = (event: Event) => {
      if (preventEscapeRef.current) event.preventDefault();
    };
    const handleKey = (event: KeyboardEvent) => {
      const askFirst = onEscapeRef.current;
      // A dialog opened inside this one (its question) handles its own Escape.
      if (event.key !== "Escape" || !askFirst || !(event.target instanceof Element)) return;
      if (event.target.closest("dialog") !== dialog) return;
      event.preventDefault();
      if (!preventEscapeRef.current) askFirst();
    };
    dialog.addEventListener("close", handleClose);
    dialog.addEventListener("cancel", handleCancel);
    dialog.addEventListener("keydown", handleKey);
    return () => {
      dialog.removeEventListener("close", handleClose);
      dialog.removeEventListener("cancel", handleCancel);
      dialog.removeEventListener("keydown", handleKey);
      if (dialog.open) dialog.close();
      // After React has finished this commit, so a re-rendered list is in place.
      requestAnimationFrame(() => {
        const target = [returnRef.current?.(), opener, fallbackRef.current?.()].find((el) => el?.isConnected);
        target?.focus();
      });
    };
  }, []);

  return (
    <dialog
      ref={ref}
      role={role}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      className={`m-auto w-[calc(100%-2rem)] max-w-lg rounded-xl bg-surface p-0 text-slate-900 shadow-xl ring-1 ring-slate-200 backdrop:bg-black/50 ${className}`}
    >
      {children}
    </dialog>
  );
}
