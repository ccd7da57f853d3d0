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

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const active = document.activeElement;
    // A form that opened it may have just been removed, leaving focus on <body>: no opener then.
    const opener = active instanceof HTMLElement && active !== document.body ? active : null;
    if (!dialog.open) dialog.showModal();
    const handleClose = () => onCloseRef.current();
    const handleCancel = (event: Event) => {
      if (preventEscapeRef.current) event.preventDefault();
    };
    dialog.addEventListener("close", handleClose);
    dialog.addEventListener("cancel", handleCancel);
    return () => {
      dialog.removeEventListener("close", handleClose);
      dialog.removeEventListener("cancel", handleCancel);
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
