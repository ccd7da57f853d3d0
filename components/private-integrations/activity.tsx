"use client";

import { useEffect, useRef, useState, useTransition } from "react";
import { DataTable } from "@/components/ui/data-table";
import { LocalDate, RelativeTime } from "@/components/ui/relative-time";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { connectionFailed } from "./confirm-dialog";
import { Spinner } from "./spinner";
import type { AuditDetail, AuditItem, AuditPage, FormAction } from "./types";

/** Newest first; the same order the server pages in (time, then id). */
function merged(...lists: AuditItem[][]): AuditItem[] {
  const byId = new Map<string, AuditItem>();
  for (const list of lists) for (const e of list) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) => b.at.localeCompare(a.at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * The first page as the server rendered it, and what `Show more` read after it. A page refreshed
 * after a change brings newer entries on top; what was already shown stays, so nothing drops out
 * between the pages.
 */
function useShowMore(first: AuditPage, read: FormAction | undefined, fields: Record<string, string>) {
  const [loaded, setLoaded] = useState<AuditItem[]>([]);
  const [more, setMore] = useState<boolean | null>(null);
  const [error, setError] = useState<string>();
  const [pending, startTransition] = useTransition();
  // The first entry a press brought, to take the keyboard there once its button is gone.
  const [firstNew, setFirstNew] = useState<string | null>(null);
  const entries = loaded.length ? merged(first.entries, loaded) : first.entries;
  const hasMore = Boolean(read) && (more ?? first.more);

  function showMore() {
    if (!read) return;
    const last = entries.at(-1);
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    if (last) {
      form.set("beforeAt", last.at);
      form.set("beforeId", last.id);
    }
    setError(undefined);
    startTransition(async () => {
      const result = await read({}, form).catch((): ActionState => ({ ok: false, error: connectionFailed }));
      const page = result.data?.activity as AuditPage | undefined;
      if (!result.ok || !page) {
        setError(result.error ?? "More activity could not be read; reload the page.");
        return;
      }
      setLoaded(merged(entries, page.entries));
      setMore(page.more);
      setFirstNew(page.more ? null : (page.entries[0]?.id ?? null));
    });
  }
  return { entries, hasMore, showMore, pending, error, firstNew, loadedAll: loaded.length > 0 && !hasMore };
}

function ShowMore({ state, label }: { state: ReturnType<typeof useShowMore>; label: string }) {
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3">
      {state.hasMore ? (
        <button
          type="button"
          onClick={state.showMore}
          disabled={state.pending}
          aria-busy={state.pending}
          aria-describedby={`${label}-count`}
          className={buttonClass("secondary")}
        >
          {state.pending ? <Spinner /> : null}
          Show more
        </button>
      ) : null}
      <p id={`${label}-count`} role="status" className="text-sm text-slate-600">
        {state.hasMore
          ? `The newest ${state.entries.length === 1 ? "entry is" : `${state.entries.length} are`} shown.`
          : state.loadedAll
            ? `All ${state.entries.length} shown.`
            : ""}
      </p>
      {state.error ? (
        <p role="alert" className="text-sm text-red-700">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}

/** Once the last page is in (no more button), the keyboard goes to its first entry, not to <body>. */
function useFocusFirstNew(prefix: string, id: string | null) {
  const done = useRef<string | null>(null);
  useEffect(() => {
    if (!id || done.current === id) return;
    done.current = id;
    document.getElementById(`${prefix}-${id}`)?.focus();
  }, [prefix, id]);
}

function Details({ details, className }: { details: AuditDetail[]; className: string }) {
  if (!details.length) return null;
  return (
    <ul className={className}>
      {details.map((d) => (
        <li key={typeof d === "string" ? d : `${d.text}${d.at}`}>
          {typeof d === "string" ? (
            d
          ) : (
            <>
              {d.text} <LocalDate value={d.at} />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * `Activity`: who did what to which integration, newest first; the newest 20, then 20 more per
 * press of `Show more`. No token ever appears here, only hints.
 */
export function AuditLogView({
  first,
  now,
  read,
  fields,
}: {
  first: AuditPage;
  /** The render time (ISO), for relative times. */
  now: string;
  read?: FormAction;
  /** The sub-account's id on its screen. */
  fields: Record<string, string>;
}) {
  const state = useShowMore(first, read, fields);
  useFocusFirstNew("pi-activity", state.firstNew);
  return (
    <section aria-labelledby="pi-activity-title" className="mt-10">
      <h2 id="pi-activity-title" className="text-base font-semibold">
        Activity
      </h2>
      <p className="mt-0.5 text-sm text-slate-600">
        Every change to these integrations and their tokens, newest first.
      </p>
      {state.entries.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">Nothing has happened here yet.</p>
      ) : (
        <>
          <DataTable
            label="Private integration changes, newest first"
            caption="Private integration activity, newest first"
            columns={[{ label: "When" }, { label: "Integration" }, { label: "What happened" }, { label: "By" }]}
            className="mt-3"
            headClassName="font-medium text-slate-500"
            cellPadding="px-4 py-2"
          >
            <tbody className="divide-y divide-slate-100">
              {state.entries.map((e) => (
                <tr key={e.id} id={`pi-activity-${e.id}`} tabIndex={-1} className="align-top">
                  <td className="px-4 py-2 whitespace-nowrap text-slate-600">
                    <RelativeTime value={e.at} now={now} />
                  </td>
                  <td className="px-4 py-2 font-medium break-words text-slate-800">{e.integrationName || "—"}</td>
                  <td className="px-4 py-2 text-slate-800">
                    {e.label}
                    <Details details={e.details} className="mt-0.5 space-y-0.5 text-xs text-slate-600" />
                  </td>
                  <td className="px-4 py-2 text-slate-600">{e.actor ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </DataTable>
          {state.hasMore || state.error || state.loadedAll ? <ShowMore state={state} label="pi-activity" /> : null}
        </>
      )}
    </section>
  );
}

/** An integration's own entries in its details, newest first, with `Show more` when older ones may exist. */
export function IntegrationHistory({
  integrationId,
  first,
  now,
  read,
  fields,
}: {
  integrationId: string;
  first: AuditPage;
  now: string;
  read?: FormAction;
  fields: Record<string, string>;
}) {
  const state = useShowMore(first, read, { ...fields, integrationId });
  const prefix = `pi-${integrationId}-history`;
  useFocusFirstNew(prefix, state.firstNew);
  return (
    <section aria-label="History of this integration" className="mt-4">
      <h4 className="text-xs font-medium text-slate-500">History</h4>
      {state.entries.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">
          {state.hasMore ? "Nothing among the newest activity of the screen." : "Nothing recorded yet."}
        </p>
      ) : (
        <ol className="mt-1 space-y-1 text-sm">
          {state.entries.map((e) => (
            <li key={e.id} id={`${prefix}-${e.id}`} tabIndex={-1}>
              <span className="text-slate-600">
                <RelativeTime value={e.at} now={now} />
              </span>{" "}
              <span className="font-medium text-slate-800">{e.label}</span>
              {e.actor ? <span className="text-slate-600"> by {e.actor}</span> : null}
              <Details details={e.details} className="text-xs text-slate-600" />
            </li>
          ))}
        </ol>
      )}
      {state.hasMore || state.error || state.loadedAll ? <ShowMore state={state} label={prefix} /> : null}
    </section>
  );
}
