import type { ReactNode } from "react";

/** The card look shared by every screen's boxed sections and tables. */
export const panelClass = "rounded-lg bg-surface shadow-sm ring-1 ring-slate-200";

/** A boxed section named by its heading (aria-labelledby), the way every settings card reads. */
export function Panel({
  titleId,
  title,
  className = "p-6",
  titleClassName = "mb-3",
  children,
}: {
  titleId: string;
  title: ReactNode;
  /** Padding and outer spacing; the look itself is panelClass. */
  className?: string;
  titleClassName?: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={titleId} className={`${panelClass} ${className}`}>
      <h2 id={titleId} className={`font-semibold ${titleClassName}`.trim()}>
        {title}
      </h2>
      {children}
    </section>
  );
}
