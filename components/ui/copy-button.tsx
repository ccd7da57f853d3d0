"use client";

import { useState } from "react";
import { buttonClass } from "./submit-button";

/** Copies `value` to the clipboard and says so. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  }
  return (
    <button type="button" onClick={copy} className={buttonClass("secondary")}>
      {label}
      <span role="status" className="sr-only">
        {copied ? "Copied" : ""}
      </span>
      {copied ? <span aria-hidden="true">✓</span> : null}
    </button>
  );
}
