"use client";

import { useRouter } from "next/navigation";

/**
 * Jumps to a sub-account's settings; the list holds only sub-accounts the person can reach, and
 * "Agency view" only for agency users (a sub-account user has no agency screens to go back to).
 */
export function LocationSwitcher({
  locations,
  current,
  agencyView,
}: {
  locations: { id: string; name: string }[];
  current?: string;
  agencyView: boolean;
}) {
  const router = useRouter();
  if (locations.length === 0) return null;
  return (
    <label className="flex items-center gap-2 text-sm text-slate-600">
      <span>Sub-account</span>
      <select
        aria-label="Switch sub-account"
        value={current ?? ""}
        onChange={(e) => router.push(e.target.value ? `/location/${e.target.value}/settings` : "/settings")}
        className="rounded-md border-0 py-1.5 pr-8 pl-2 text-sm ring-1 ring-slate-500 ring-inset focus:ring-2 focus:ring-brand-600"
      >
        {agencyView ? (
          <option value="">Agency view</option>
        ) : (
          <option value="" disabled>
            Choose a sub-account
          </option>
        )}
        {locations.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  );
}
