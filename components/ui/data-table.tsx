import type { ReactNode } from "react";
import { panelClass } from "./panel";
import { ScrollRegion } from "./scroll-region";

export interface Column {
  /** What the header says; `srOnly` keeps it for screen readers alone (an actions column). */
  label: string;
  srOnly?: boolean;
  /** Added to the header cell's padding (alignment, nowrap, sticky). */
  className?: string;
  /** A sortable column: its header is a button, and `aria-sort` says the order. */
  sort?: { direction: "ascending" | "descending" | "none"; onToggle: () => void };
}

/** The header's arrow: the one the order points, or both, faint, while the column is not sorted. */
function SortArrow({ direction }: { direction: "ascending" | "descending" | "none" }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4 shrink-0" fill="currentColor">
      {direction !== "descending" ? (
        <path d="M10 4 14 9H6z" className={direction === "none" ? "opacity-40" : undefined} />
      ) : null}
      {direction !== "ascending" ? (
        <path d="M10 16 6 11h8z" className={direction === "none" ? "opacity-40" : undefined} />
      ) : null}
    </svg>
  );
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
              <th
                key={column.label}
                scope="col"
                aria-sort={column.sort?.direction}
                className={`${cellPadding} ${column.className ?? ""}`.trim()}
              >
                {column.sort ? (
                  <button
                    type="button"
                    onClick={column.sort.onToggle}
                    className="-mx-1 inline-flex min-h-6 items-center gap-0.5 rounded px-1 text-left font-semibold whitespace-nowrap hover:bg-slate-200/60 hover:text-slate-900"
                  >
                    {column.label}
                    <SortArrow direction={column.sort.direction} />
                  </button>
                ) : column.srOnly ? (
                  <span className="sr-only">{column.label}</span>
                ) : (
                  column.label
                )}
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
