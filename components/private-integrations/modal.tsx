"use client";

import { type ReactNode, useLayoutEffect, useRef } from "react";

type FocusTarget = () => HTMLElement | null | undefined;

/**
 * A native modal <dialog>, open while mounted: the browser traps focus and makes the page behind it
 * inert, Escape closes it. On closing, focus goes back to the control that opened it or, when that
 * control is gone (a rotated or deleted integration), to `fallbackFocus`.
 */
export function Modal({
  labelledBy,
  describedBy,
  onClose,
  fallbackFocus,
  children,
  className = "",
  role,
  preventEscape = false,
}: {
  labelledBy: string;
  describedBy?: string;
  onClose: () => void;
  fallbackFocus?: FocusTarget;
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
  const preventEscapeRef = useRef(preventEscape);
  preventEscapeRef.current = preventEscape;

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
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
      const target = [opener, fallbackRef.current?.()].find((el) => el?.isConnected);
      // After React has finished this commit, so a re-rendered list is in place.
      requestAnimationFrame(() => (target?.isConnected ? target : fallbackRef.current?.())?.focus());
    };
  }, []);

  return (
    <dialog
      ref={ref}
      role={role}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      className={`m-auto w-[calc(100%-2rem)] max-w-lg rounded-xl bg-white p-0 text-slate-900 shadow-xl ring-1 ring-slate-200 backdrop:bg-slate-900/40 ${className}`}
    >
      {children}
    </dialog>
  );
}
