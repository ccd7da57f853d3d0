"use client";

import { usePathname } from "next/navigation";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";

/**
 * Narrow screens: the navigation behind a `Menu` disclosure button (WAI-ARIA disclosure pattern:
 * aria-expanded, aria-controls). The panel is rendered only while open, so at wide widths, where
 * the sidebar shows, nothing is duplicated in the page. Escape closes it and gives the focus back to
 * the button; following a link closes it.
 */
export function NavigationMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const pathname = usePathname();

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new path (a link was followed) closes the menu
  useEffect(() => setOpen(false), [pathname]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <div className="md:hidden">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex items-center gap-2 rounded-md px-2.5 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-500 ring-inset hover:bg-slate-100"
      >
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
          <path d="M3 5h14v2H3zM3 9h14v2H3zM3 13h14v2H3z" />
        </svg>
        Menu
      </button>
      {open ? (
        <div
          id={panelId}
          className="absolute inset-x-0 top-full z-30 max-h-[calc(100vh-4rem)] space-y-6 overflow-y-auto border-b border-slate-200 bg-surface px-6 py-4 shadow-lg"
        >
          {children}
        </div>
      ) : (
        <div id={panelId} hidden />
      )}
    </div>
  );
}
