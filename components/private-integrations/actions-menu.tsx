"use client";

import { useId, useLayoutEffect, useRef, useState } from "react";

export interface MenuAction {
  label: string;
  onSelect: () => void;
  danger?: boolean;
}

/**
 * A row's `Actions for <name>` menu button. The list is an HTML popover (top layer): a table that
 * scrolls sideways on a phone cannot clip it, a click outside or Escape closes it, and it follows
 * its button in the tab order. Its entries stay buttons with the lifecycle names SPEC.md gives.
 * They are drawn when the menu opens: a page of 50 rows draws 50 buttons, not every row's entries.
 *
 * `aria-expanded` follows the popover's `beforetoggle`, which fires as it opens or closes, and the
 * entries are drawn then too, so both are there the moment the list shows. The `toggle` event comes
 * a task later: a button that still said "collapsed", or a menu shown empty, was what a quick second
 * press or a screen reader met. The entries go only at that later `toggle`: taken out while the
 * popover closes, the focused one would take the focus with it, and Escape would not hand it back
 * to the button.
 */
export function ActionsMenu({ name, actions }: { name: string; actions: MenuAction[] }) {
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState(false);
  const [drawn, setDrawn] = useState(false);
  // Once the entries are drawn (on opening): placed by their size, and the keyboard on the first.
  // They are drawn before the popover shows (its `beforetoggle`), when it has no size yet: placed
  // then in the frame's callback, which runs once it shows and before anything is painted.
  useLayoutEffect(() => {
    const list = panel.current;
    if (!expanded || !list) return;
    const place = () => {
      const anchor = button.current?.getBoundingClientRect();
      if (!anchor || !list.matches(":popover-open")) return;
      const width = list.offsetWidth;
      const left = Math.max(8, Math.min(anchor.right - width, window.innerWidth - width - 8));
      const below = anchor.bottom + 4 + list.offsetHeight <= window.innerHeight;
      list.style.left = `${left}px`;
      list.style.top = below ? `${anchor.bottom + 4}px` : `${Math.max(8, anchor.top - 4 - list.offsetHeight)}px`;
      list.querySelector("button")?.focus();
    };
    if (list.matches(":popover-open")) {
      place();
      return;
    }
    const frame = requestAnimationFrame(place);
    return () => cancelAnimationFrame(frame);
  }, [expanded]);

  return (
    <>
      <button
        ref={button}
        type="button"
        popoverTarget={id}
        aria-expanded={expanded}
        aria-label={`Actions for ${name}`}
        className="inline-flex items-center gap-1 rounded-md px-2.5 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-500 ring-inset hover:bg-slate-100"
      >
        Actions
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
          <path d="M5.5 7.5 10 12l4.5-4.5z" />
        </svg>
      </button>
      <div
        ref={panel}
        id={id}
        popover="auto"
        onBeforeToggle={(e) => {
          setExpanded(e.newState === "open");
          if (e.newState === "open") setDrawn(true);
        }}
        // A toggle's event is merged with the next one's when both come before it fires: its newState is the last.
        onToggle={(e) => {
          if (e.newState === "closed") setDrawn(false);
        }}
        className="fixed m-0 w-max min-w-48 rounded-md bg-surface p-1 text-left text-slate-800 shadow-lg ring-1 ring-slate-200 [inset:auto]"
      >
        {drawn ? (
          <ul aria-label={`Actions for ${name}`}>
            {actions.map((action) => (
              <li key={action.label}>
                <button
                  type="button"
                  onClick={() => {
                    panel.current?.hidePopover();
                    button.current?.focus();
                    action.onSelect();
                  }}
                  className={`block w-full rounded px-3 py-2 text-left text-sm hover:bg-slate-100 ${action.danger ? "text-red-700" : ""}`}
                >
                  {action.label}
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </>
  );
}
