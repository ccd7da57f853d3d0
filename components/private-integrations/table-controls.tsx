"use client";

import { buttonClass } from "@/components/ui/button-styles";
import type { AttentionKind, StatusFilter } from "@/lib/integrations/triage";

const attentionWords: Record<AttentionKind, (n: number) => string> = {
  revoked: (n) => `${n} reported as leaked (revoked)`,
  expired: (n) => `${n} expired`,
  "expiring-soon": (n) => `${n} expiring soon (within 14 days)`,
  "rotation-due": (n) => `${n} due for rotation (token 90 days or older)`,
  unused: (n) => `${n} unused (not used in 30 days)`,
};

/**
 * `Needs attention`, present when anything needs it: a line per kind with its count (revoked
 * first), each a link that applies that filter (24 px tall at least, a comfortable target).
 */
export function NeedsAttention({
  lines,
  current,
  onApply,
}: {
  lines: { kind: AttentionKind; count: number }[];
  current: StatusFilter;
  onApply: (kind: AttentionKind) => void;
}) {
  if (!lines.length) return null;
  return (
    <section aria-labelledby="pi-attention" className="rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200">
      <h3 id="pi-attention" className="font-semibold text-amber-900">
        Needs attention
      </h3>
      <ul className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
        {lines.map(({ kind, count }) => (
          <li key={kind}>
            <a
              href={`?status=${kind}`}
              onClick={(e) => {
                e.preventDefault();
                onApply(kind);
              }}
              aria-current={current === kind ? "true" : undefined}
              className="inline-flex min-h-6 items-center font-medium text-amber-900 underline underline-offset-2"
            >
              {attentionWords[kind](count)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `Previous` and `Next` through pages of rows, when there is more than one. */
export function Pager({
  page,
  pageCount,
  onPage,
}: {
  page: number;
  pageCount: number;
  onPage: (page: number) => void;
}) {
  if (pageCount < 2) return null;
  const button = `${buttonClass("secondary")} disabled:opacity-50`;
  return (
    <nav aria-label="Pages of integrations" className="flex items-center justify-between gap-3 text-sm">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)} className={button}>
        Previous
      </button>
      <span className="text-slate-700">
        Page {page + 1} of {pageCount}
      </span>
      <button type="button" disabled={page === pageCount - 1} onClick={() => onPage(page + 1)} className={button}>
        Next
      </button>
    </nav>
  );
}

/** `Showing all 30`, `Showing 4 of 30`, `Showing 51–100 of 500`, `Showing 1–50 of 120 (of 500)`. */
export function showingWords(from: number, onPage: number, matching: number, all: number): string {
  if (onPage === matching) return matching === all ? `Showing all ${all}` : `Showing ${matching} of ${all}`;
  const range = `Showing ${from + 1}–${from + onPage} of ${matching}`;
  return matching === all ? range : `${range} (of ${all})`;
}
