import type { ReactNode } from "react";

/**
 * A wide table's own sideways scroll, so the page never scrolls sideways on a phone (relative: the
 * absolutely positioned screen-reader-only text inside stays inside too). A scrolling
 * region takes the keyboard focus (WCAG 2.1.1) and so needs a name.
 */
export function ScrollRegion({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus (WCAG 2.1.1)
    <section aria-label={label} tabIndex={0} className={`relative overflow-x-auto ${className}`}>
      {children}
    </section>
  );
}
