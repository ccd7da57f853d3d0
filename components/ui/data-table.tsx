import type { ReactNode } from "react";
import { panelClass } from "./panel";
import { ScrollRegion } from "./scroll-region";

export interface Column {
  /** What the header says; `srOnly` keeps it for screen readers alone (an actions column). */
  label: string;
  srOnly?: boolean;
  /** Added to the header cell's padding (alignment, nowrap, sticky). */
  className?: string;
}

/**
 * A boxed table in its own named scroll region, with a screen-reader caption and a header row:
 * the frame every list screen shares. The rows (one or more tbody) are the children.
 */
export function DataTable({
  label,
  caption,
  columns,
  className = "",
  tableClassName = "divide-y divide-slate-200",
  headClassName = "font-semibold text-slate-600",
  cellPadding = "px-3 py-2",
  after,
  children,
}: {
  label: string;
  caption: ReactNode;
  columns: Column[];
  className?: string;
  tableClassName?: string;
  headClassName?: string;
  cellPadding?: string;
  /** Shown inside the region below the table (an empty-search message). */
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <ScrollRegion label={label} className={`${className} ${panelClass}`.trim()}>
      <table className={["min-w-full", tableClassName, "text-sm"].filter(Boolean).join(" ")}>
        <caption className="sr-only">{caption}</caption>
        <thead className={`bg-slate-50 text-left text-xs ${headClassName}`}>
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={`${cellPadding} ${column.className ?? ""}`.trim()}>
                {column.srOnly ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        {children}
      </table>
      {after}
    </ScrollRegion>
  );
}
