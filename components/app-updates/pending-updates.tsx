import { buttonClass } from "@/components/ui/button-styles";
import type { PendingUpdate } from "@/lib/oauth/app-updates";

/** Where an update applies, in the marketplace's words. */
export function updatePlace(update: PendingUpdate): string {
  return update.userType === "Company" ? "Agency install" : `Sub-account install · ${update.location?.name ?? ""}`;
}

/**
 * `/marketplace`: an installed app's new version waiting for consent, shown on that installation's
 * entry (so the app is still listed once per place), with `Review update`.
 */
export function UpdateAvailable({ update }: { update: PendingUpdate }) {
  return (
    <div className="mt-2 rounded-md bg-amber-50 p-3 ring-1 ring-amber-300">
      <p className="text-sm font-medium text-amber-800">Update available</p>
      <p className="text-sm text-slate-700">
        <span className="text-slate-500">Asks for:</span> {update.added.join(", ")}
      </p>
      <a
        href={`/marketplace/updates/${update.installationId}`}
        aria-label={`Review update of ${update.appName}`}
        className={`mt-2 ${buttonClass("primary")}`}
      >
        Review update
      </a>
    </div>
  );
}
