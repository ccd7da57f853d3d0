"use client";

import type { ReactNode } from "react";
import { RelativeTime } from "@/components/ui/relative-time";
import type { LifecycleKind } from "@/lib/integrations/catalog";
import type { RowSignal } from "@/lib/integrations/triage";
import { ActionsMenu } from "./actions-menu";
import { integrationTitleId, ScopeChips, StatusBadge } from "./integration-card";
import { menuActions } from "./menu-actions";
import type { TriageRow } from "./table-sorting";
import type { IntegrationItem } from "./types";

/** How many columns a row has (the open details span them all). */
export const ROW_COLUMNS = 7;

/**
 * A cell's label, shown on a phone only, where the row is a card and the column headers are not
 * shown (display: none above 640 px, so no one reads it twice).
 */
function CardLabel({ children }: { children: ReactNode }) {
  return <span className="block text-xs font-medium whitespace-nowrap text-slate-600 sm:hidden">{children}</span>;
}

const signalTones: Record<RowSignal["kind"], string> = {
  revoked: "bg-red-50 text-red-800 ring-red-600",
  "expiring-soon": "bg-amber-50 text-amber-900 ring-amber-600",
  "rotation-due": "bg-amber-50 text-amber-900 ring-amber-600",
  unused: "bg-slate-100 text-slate-700 ring-slate-500",
};

/**
 * One integration in the list: a table row group (its row, and below it the open details or edit
 * form). Below 640 px the same markup is a card: the row becomes a grid (name and `Actions` on
 * top, then status, scopes, `Last used`, `Expires` and `Requests (7 days)`, each labelled), so no
 * column is hidden and nothing scrolls sideways.
 */
export function IntegrationRow({
  row: { item, status, signals },
  now,
  open,
  expanded,
  onToggleDetails,
  onEdit,
  onAction,
}: {
  row: TriageRow;
  now: string;
  open: boolean;
  expanded: ReactNode;
  onToggleDetails: () => void;
  onEdit: (focus?: "expires") => void;
  onAction: (kind: LifecycleKind) => void;
}) {
  const panelId = `pi-${item.id}-panel`;
  return (
    <tbody
      aria-label={item.name}
      className="border-t border-slate-200 max-sm:mb-3 max-sm:block max-sm:rounded-lg max-sm:border max-sm:bg-surface max-sm:shadow-sm"
    >
      <tr className="align-top max-sm:grid max-sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] max-sm:gap-x-3 max-sm:gap-y-2 max-sm:p-3">
        <th
          scope="row"
          className="min-w-36 max-w-64 px-2.5 py-2.5 text-left font-normal max-sm:col-span-2 max-sm:max-w-none max-sm:min-w-0 max-sm:p-0"
        >
          <button
            id={integrationTitleId(item.id)}
            type="button"
            aria-expanded={open}
            aria-controls={open ? panelId : undefined}
            onClick={onToggleDetails}
            className="min-h-6 text-left font-semibold break-words text-brand-700 underline-offset-2 hover:underline"
          >
            {item.name}
          </button>
          <span className="block font-mono text-xs text-slate-600">{item.token.hint}</span>
          {item.token.neverShown ? (
            <NeverShown
              item={item}
              canRotate={status === "active" || status === "rotating"}
              onRotate={() => onAction("rotateNow")}
            />
          ) : null}
          {signals.length ? (
            <ul aria-label={`What needs doing: ${item.name}`} className="mt-1 flex flex-wrap gap-1">
              {signals.map((signal) => (
                <li
                  key={signal.kind}
                  className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ${signalTones[signal.kind]}`}
                >
                  {signal.label}
                </li>
              ))}
            </ul>
          ) : null}
          {item.description ? (
            <span className="mt-0.5 line-clamp-2 block text-xs break-words text-slate-600">{item.description}</span>
          ) : null}
        </th>
        <td className="px-2.5 py-2.5 max-sm:col-span-3 max-sm:p-0">
          <StatusBadge status={status} />
        </td>
        <td className="min-w-40 px-2.5 py-2.5 max-sm:col-span-3 max-sm:min-w-0 max-sm:p-0">
          <ScopeChips scopes={item.scopes} />
        </td>
        <td className="px-2.5 py-2.5 whitespace-nowrap text-slate-700 max-sm:p-0 max-sm:whitespace-normal">
          <CardLabel>Last used</CardLabel>
          {item.lastUsedAt ? <RelativeTime value={item.lastUsedAt} now={now} /> : "Never used"}
        </td>
        <td className="px-2.5 py-2.5 whitespace-nowrap text-slate-700 max-sm:p-0 max-sm:whitespace-normal">
          <CardLabel>Expires</CardLabel>
          {item.expiresAt ? <RelativeTime value={item.expiresAt} now={now} kind="expiry" /> : "Never"}
        </td>
        <td className="px-2.5 py-2.5 text-right tabular-nums text-slate-700 max-sm:p-0 max-sm:text-left">
          <CardLabel>Requests (7 days)</CardLabel>
          {item.requests7d === undefined ? (
            <>
              <span aria-hidden="true">—</span>
              <span className="sr-only">Not counted yet</span>
            </>
          ) : (
            item.requests7d.toLocaleString("en")
          )}
        </td>
        {/* Sticky: in the table the menu stays in reach while the other columns scroll; on a card it
            sits beside the name (after the row's other cells for the keyboard). */}
        <td className="sticky right-0 bg-surface px-2.5 py-2.5 text-right max-sm:static max-sm:col-start-3 max-sm:row-start-1 max-sm:justify-self-end max-sm:bg-transparent max-sm:p-0">
          <ActionsMenu name={item.name} actions={menuActions(item, status, onEdit, (kind) => onAction(kind))} />
        </td>
      </tr>
      {open ? (
        <tr className="max-sm:block">
          <td id={panelId} colSpan={ROW_COLUMNS} className="px-2.5 pb-4 max-sm:block max-sm:px-3 max-sm:pb-3">
            {/* In the table (wider than a small window) the details, their chart too, stay in view,
                as wide as the region, while the columns scroll. */}
            <div className="sticky left-2.5 w-[calc(100cqw-1.25rem)] max-sm:static max-sm:w-auto">{expanded}</div>
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}

/**
 * A token whose answer never reached a screen (lost, with the dialog's key): nobody has it. `Rotate
 * and expire this token now` replaces it with one that is shown (during a rotation, the new token only).
 */
function NeverShown({
  item,
  canRotate,
  onRotate,
}: {
  item: IntegrationItem;
  canRotate: boolean;
  onRotate: () => void;
}) {
  return (
    <span className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
      <span className="inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 ring-1 ring-amber-300">
        Token never shown
      </span>
      {canRotate ? (
        <button
          type="button"
          onClick={onRotate}
          aria-describedby={integrationTitleId(item.id)}
          className="min-h-6 text-left text-xs font-medium text-brand-700 underline underline-offset-2"
        >
          Rotate and expire this token now
        </button>
      ) : null}
    </span>
  );
}
