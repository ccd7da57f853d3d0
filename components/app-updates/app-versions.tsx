import { Panel } from "@/components/ui/panel";
import { LocalDate } from "@/components/ui/relative-time";
import type { AppVersions } from "@/lib/apps/versions";

function Scopes({ label, scopes }: { label: string; scopes: string[] }) {
  if (scopes.length === 0) return null;
  return (
    <p className="text-sm text-slate-700">
      <span className="text-slate-500">{label}:</span> {scopes.join(", ")}
    </p>
  );
}

/** The developer page's `Versions`: each version with its date and the scopes it added and removed. */
export function AppVersionsSection({ data }: { data: AppVersions }) {
  const newest = data.versions[0];
  return (
    <Panel titleId="versions-title" title="Versions" titleClassName="mb-2">
      <p className="mb-3 text-sm text-slate-600" data-testid="installations-on-newest">
        {data.onNewestVersion} of {data.installations} installation{data.installations === 1 ? "" : "s"} run the newest
        version. A version that adds scopes waits for each installation's admin to approve it; one that only removes
        scopes applies at once.
      </p>
      <ol className="space-y-3">
        {data.versions.map((v) => (
          <li key={v.id} className="border-t border-slate-100 pt-2">
            <p className="text-sm font-medium">
              <code>{v.id}</code> · <LocalDate value={v.createdAt} />
              {v.id === newest?.id ? <span className="text-slate-500"> (newest)</span> : null}
            </p>
            <Scopes label="Added" scopes={v.added} />
            <Scopes label="Removed" scopes={v.removed} />
          </li>
        ))}
      </ol>
    </Panel>
  );
}
