import type { ReactNode } from "react";
import { RelativeTime } from "@/components/ui/relative-time";
import { type DeliveryState, deliveryStateLabels } from "@/lib/webhooks/delivery-state";

/** Presentational pieces of the webhook delivery log (no database access). */

const statusStyles: Record<DeliveryState, { mark: string; className: string }> = {
  pending: { mark: "◷", className: "bg-slate-100 text-slate-700 ring-slate-300" },
  retrying: { mark: "↻", className: "bg-amber-50 text-amber-800 ring-amber-200" },
  delivered: { mark: "✓", className: "bg-emerald-50 text-emerald-800 ring-emerald-200" },
  failed: { mark: "✕", className: "bg-red-50 text-red-800 ring-red-200" },
};

/** The state as words (the colour and mark only repeat them). */
export function StatusBadge({ status }: { status: DeliveryState }) {
  const s = statusStyles[status];
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${s.className}`}
    >
      <span aria-hidden="true">{s.mark}</span>
      {deliveryStateLabels[status]}
    </span>
  );
}

/** A moment of the log read relative to the page's render (`3 minutes ago`), exact on hover and focus. */
export function Timestamp({ value, now, empty = "—" }: { value: Date | null; now: string; empty?: ReactNode }) {
  if (!value) return <span className="text-slate-500">{empty}</span>;
  return (
    <span className="whitespace-nowrap">
      <RelativeTime value={value.toISOString()} now={now} />
    </span>
  );
}

/** What the receiver answered, or why it could not be reached. */
export function Outcome({ statusCode, error }: { statusCode: number | null; error: string | null }) {
  if (statusCode !== null) {
    const ok = statusCode >= 200 && statusCode < 300;
    return (
      <span className={ok ? "text-emerald-800" : "text-red-700"}>
        HTTP {statusCode}
        {error ? <span className="block text-xs text-slate-500">{error}</span> : null}
      </span>
    );
  }
  if (error) return <span className="text-red-700">{error}</span>;
  return <span className="text-slate-500">—</span>;
}
