"use client";

import type { ReactNode } from "react";
import { useFormStatus } from "react-dom";
import { buttonClass } from "./button-styles";

// Re-exported for client components; server components import it from ./button-styles.
export { buttonClass };

/** A form's submit button that shows it is working and cannot be pressed twice. */
export function SubmitButton({
  children,
  pendingLabel,
  variant = "primary",
  className = "",
}: {
  children: ReactNode;
  pendingLabel?: string;
  variant?: "primary" | "secondary" | "danger";
  className?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={`${buttonClass(variant)} ${className}`}>
      {pending ? (pendingLabel ?? children) : children}
    </button>
  );
}
