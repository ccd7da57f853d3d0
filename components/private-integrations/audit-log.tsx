import { ScrollRegion } from "@/components/ui/scroll-region";
import { formatDateTime } from "./format";
import type { AuditItem } from "./types";

/** Who did what to which integration, newest first. No token ever appears here, only hints. */
export function AuditLogView({ entries, limit }: { entries: AuditItem[]; limit: number }) {
  return (
    <section aria-labelledby="pi-activity-title" className="mt-10">
      <h2 id="pi-activity-title" className="text-base font-semibold">
        Activity
      </h2>
      <p className="mt-0.5 text-sm text-slate-600">
        Every change to these integrations and their tokens
        {entries.length >= limit ? `; the latest ${limit} are shown` : ""}.
      </p>
      {entries.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">Nothing has happened here yet.</p>
      ) : (
        <ScrollRegion
          label="Private integration changes, newest first"
          className="mt-3 rounded-lg bg-surface shadow-sm ring-1 ring-slate-200"
        >
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Private integration activity, newest first</caption>
            <thead className="bg-slate-50 text-left text-xs font-medium text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">
                  When
                </th>
                <th scope="col" className="px-4 py-2">
                  Integration
                </th>
                <th scope="col" className="px-4 py-2">
                  What happened
                </th>
                <th scope="col" className="px-4 py-2">
                  By
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {entries.map((e) => (
                <tr key={e.id} className="align-top">
                  <td className="px-4 py-2 whitespace-nowrap text-slate-600">
                    <time dateTime={e.at}>{formatDateTime(e.at)}</time>
                  </td>
                  <td className="px-4 py-2 font-medium break-words text-slate-800">{e.integrationName || "—"}</td>
                  <td className="px-4 py-2 text-slate-800">
                    {e.label}
                    {e.details.length ? (
                      <ul className="mt-0.5 space-y-0.5 text-xs text-slate-500">
                        {e.details.map((d) => (
                          <li key={d}>{d}</li>
                        ))}
                      </ul>
                    ) : null}
                  </td>
                  <td className="px-4 py-2 text-slate-600">{e.actor ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
