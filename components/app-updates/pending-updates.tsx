import { buttonClass } from "@/components/ui/button-styles";
import type { PendingUpdate } from "@/lib/oauth/app-updates";

/** Where an update applies, in the marketplace's words. */
export function updatePlace(update: PendingUpdate): string {
  return update.userType === "Company" ? "Agency install" : `Sub-account install · ${update.location?.name ?? ""}`;
}

/** `/marketplace`: installed apps whose new version waits for consent, with `Review update`. */
export function PendingUpdates({ updates }: { updates: PendingUpdate[] }) {
  if (updates.length === 0) return null;
  return (
    <section aria-labelledby="updates-title" className="mb-10">
      <h2 id="updates-title" className="mb-3 text-lg font-semibold">
        Updates
      </h2>
      <ul className="space-y-3">
        {updates.map((u) => (
          <li key={u.installationId}>
            <section
              aria-label={`${u.appName} update available`}
              className="flex flex-wrap items-start justify-between gap-4 rounded-lg bg-surface p-4 shadow-sm ring-1 ring-amber-300"
            >
              <div>
                <h3 className="font-medium">
                  {u.appName} <span className="text-sm font-normal text-amber-800">Update available</span>
                </h3>
                <p className="text-sm text-slate-600">{updatePlace(u)}</p>
                <p className="text-sm text-slate-700">
                  <span className="text-slate-500">Asks for:</span> {u.added.join(", ")}
                </p>
              </div>
              <a
                href={`/marketplace/updates/${u.installationId}`}
                aria-label={`Review update of ${u.appName}`}
                className={buttonClass("primary")}
              >
                Review update
              </a>
            </section>
          </li>
        ))}
      </ul>
    </section>
  );
}
