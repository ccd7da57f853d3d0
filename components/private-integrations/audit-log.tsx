import { DataTable } from "@/components/ui/data-table";
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
        <DataTable
          label="Private integration changes, newest first"
          caption="Private integration activity, newest first"
          columns={[{ label: "When" }, { label: "Integration" }, { label: "What happened" }, { label: "By" }]}
          className="mt-3"
          headClassName="font-medium text-slate-500"
          cellPadding="px-4 py-2"
        >
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
        </DataTable>
      )}
    </section>
  );
}
