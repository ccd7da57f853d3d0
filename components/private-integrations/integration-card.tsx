// Over 250 lines on purpose: an integration's details (status, scopes, guard rails, usage, audit)
// are read together on one card.
import type { ReactNode } from "react";
import { LocalDate, RelativeTime } from "@/components/ui/relative-time";
import { formatDay } from "@/lib/dates/format";
import {
  type IntegrationStatus,
  type LifecycleKind,
  type StatusTone,
  statusCatalog,
  statusLabels,
} from "@/lib/integrations/catalog";
import { integrationStatus } from "@/lib/integrations/triage";
import { pluralDays } from "./format";
import { RotationPanel } from "./rotation-panel";
import { triageFacts } from "./triage-facts";
import type { IntegrationItem } from "./types";

export function integrationTitleId(id: string) {
  return `pi-${id}-title`;
}

const SCOPES_SHOWN = 8;

/**
 * One integration's details, opened from its name in the list: every scope, the guard rails, its
 * token's state, its usage (`usage`: the chart, totals and last refused request) and its audit entries. While
 * editing, the form takes the place of the details. The actions are in the row's menu; a rotation's
 * `Expire Now` and `Cancel rotation` are in its panel too.
 */
export function IntegrationDetails({
  item,
  now,
  editForm,
  usage,
  audit,
  onAction,
}: {
  item: IntegrationItem;
  /** The render time (ISO), for relative times. */
  now: string;
  editForm?: ReactNode;
  /** Its usage (the chart, totals, last refused request), read when the details open. */
  usage?: ReactNode;
  /** This integration's audit entries, newest first (with `Show more`). */
  audit?: ReactNode;
  /** Opens a lifecycle confirmation (the rotation panel's `Expire Now` and `Cancel rotation`). */
  onAction?: (kind: LifecycleKind) => void;
}) {
  const titleId = `pi-${item.id}-details-title`;
  const rotating = item.status === "rotating" && item.previousToken;
  const revoked = item.status === "revoked" ? item.revoked : null;
  const status = integrationStatus(triageFacts(item), new Date(now));

  return (
    <article aria-labelledby={titleId} className="rounded-lg bg-slate-50 p-4 ring-1 ring-slate-200">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 id={titleId} tabIndex={-1} className="text-base font-semibold break-words text-slate-900">
            {editForm ? `Edit ${item.name}` : item.name}
          </h3>
          {item.description ? (
            <p className="mt-0.5 text-sm break-words whitespace-pre-line text-slate-600">{item.description}</p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-2">
          <StatusBadge status={status} />
          {item.token.rotationDue && status === "active" ? (
            <Badge tone="amber">Rotation recommended: created {pluralDays(item.token.ageDays)} ago</Badge>
          ) : null}
        </div>
      </div>

      {editForm ? (
        <div className="mt-4 border-t border-slate-100 pt-4">{editForm}</div>
      ) : (
        <>
          {revoked ? (
            <section
              aria-label="Revoked"
              className="mt-4 rounded-md bg-red-50 p-4 text-sm text-red-950 ring-1 ring-red-200"
            >
              <p className="font-medium">
                Revoked <LocalDate value={revoked.at} />: {revoked.reason}
              </p>
              <p className="mt-1 text-red-900">
                Every token of this integration is refused. Rotate and expire this token now to issue a new one.
              </p>
            </section>
          ) : null}
          {rotating && item.previousToken ? (
            <RotationPanel item={item} previous={item.previousToken} now={now} onAction={onAction} />
          ) : null}

          <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-xs font-medium text-slate-500">Token</dt>
              <dd className="mt-0.5 font-mono text-slate-800">{item.token.hint}</dd>
            </div>
            <div>
              <dt className="text-xs font-medium text-slate-500">Created</dt>
              <dd className="mt-0.5 text-slate-800">
                <LocalDate value={item.createdAt} />
                {item.createdBy ? <span className="text-slate-500"> by {item.createdBy}</span> : null}
                {item.token.createdAt !== item.createdAt ? (
                  <span className="block text-xs text-slate-500">
                    Token issued <LocalDate value={item.token.createdAt} /> ({pluralDays(item.token.ageDays)} ago)
                  </span>
                ) : null}
              </dd>
            </div>
            <div>
              <dt className="text-xs font-medium text-slate-500">Last used</dt>
              <dd className="mt-0.5 text-slate-800">
                {item.lastUsedAt ? (
                  <>
                    <RelativeTime value={item.lastUsedAt} now={now} />
                    {item.lastUsedAddress ? (
                      <>
                        {" "}
                        from <span className="font-mono">{item.lastUsedAddress}</span>
                      </>
                    ) : null}
                  </>
                ) : (
                  "Never used"
                )}
              </dd>
            </div>
            <GuardRails item={item} now={now} />
            <div className="sm:col-span-3">
              <dt className="text-xs font-medium text-slate-500">
                Scopes <span className="text-slate-500">({item.scopes.length})</span>
              </dt>
              <dd className="mt-1">
                <ScopeChips scopes={item.scopes} />
              </dd>
            </div>
          </dl>

          {usage}

          {audit}
        </>
      )}
    </article>
  );
}

export function ScopeChips({ scopes }: { scopes: string[] }) {
  const chip = (s: string) => (
    <li key={s} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">
      {s}
    </li>
  );
  if (scopes.length <= SCOPES_SHOWN) return <ul className="flex flex-wrap gap-1.5">{scopes.map(chip)}</ul>;
  return (
    <>
      <ul className="flex flex-wrap gap-1.5">{scopes.slice(0, SCOPES_SHOWN).map(chip)}</ul>
      <details className="mt-1.5">
        <summary className="cursor-pointer text-xs text-brand-700">{scopes.length - SCOPES_SHOWN} more</summary>
        <ul className="mt-1.5 flex flex-wrap gap-1.5">{scopes.slice(SCOPES_SHOWN).map(chip)}</ul>
      </details>
    </>
  );
}

/** The guard rails that are set, in a line each; none shown when none are set. */
function GuardRails({ item, now }: { item: IntegrationItem; now: string }) {
  const rows: [string, ReactNode][] = [];
  if (item.expiresAt) {
    rows.push([
      "Expires",
      // The Expires day as chosen (a UTC day); the moment its tokens stop, in the viewer's zone, on hover and focus.
      <span key="e">
        {item.expiry.kind === "expired" ? "Expired after" : "After"} {formatDay(item.expires)} (
        <RelativeTime value={item.expiresAt} now={now} kind="expiry" />)
      </span>,
    ]);
  }
  if (!item.subAccounts.all) {
    const names = item.subAccounts.chosen.map((c) => c.name);
    rows.push(["Sub-accounts", names.length ? names.join(", ") : "None (the chosen ones were deleted)"]);
  }
  if (item.allowedIpAddresses.length) {
    rows.push([
      "Allowed IP addresses",
      <span key="a" className="font-mono">
        {item.allowedIpAddresses.join(", ")}
      </span>,
    ]);
  }
  return (
    <>
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt className="text-xs font-medium text-slate-500">{label}</dt>
          <dd className="mt-0.5 break-words text-slate-800">{value}</dd>
        </div>
      ))}
    </>
  );
}

function Badge({ tone, children }: { tone: "green" | "blue" | "amber" | "red" | "slate"; children: ReactNode }) {
  const colors = {
    red: "bg-red-50 text-red-800 ring-red-200",
    slate: "bg-slate-50 text-slate-700 ring-slate-300",
    green: "bg-emerald-50 text-emerald-800 ring-emerald-200",
    blue: "bg-blue-50 text-blue-800 ring-blue-200",
    amber: "bg-amber-50 text-amber-900 ring-amber-300",
  } as const;
  return (
    <span className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ${colors[tone]}`}>
      {children}
    </span>
  );
}

/** The badge of each tone a status may take in the catalogue. */
const statusTones: Record<StatusTone, string> = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  blue: "bg-blue-50 text-blue-800 ring-blue-200",
  red: "bg-red-50 text-red-800 ring-red-200",
  slate: "bg-slate-100 text-slate-700 ring-slate-300",
  amber: "bg-amber-50 text-amber-900 ring-amber-300",
};

export function StatusBadge({ status }: { status: IntegrationStatus }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ${statusTones[statusCatalog[status].tone]}`}
    >
      {statusLabels[status]}
    </span>
  );
}
