import type { Metadata } from "next";
import { UpdateAvailable } from "@/components/app-updates/pending-updates";
import { UninstallButton } from "@/components/marketplace/uninstall-button";
import { PageHeader } from "@/components/page-header";
import { buttonClass } from "@/components/ui/button-styles";
import { panelClass } from "@/components/ui/panel";
import { LocalDate } from "@/components/ui/relative-time";
import { installSettingLabels } from "@/lib/apps/settings";
import { requireActor } from "@/lib/auth/session";
import { listPendingUpdates } from "@/lib/oauth/app-updates";
import { listInstallableApps, listInstalledApps } from "@/lib/oauth/marketplace";
import { uninstallAction } from "./actions";

export const metadata: Metadata = { title: "Marketplace" };

export default async function MarketplacePage() {
  const actor = await requireActor();
  const [apps, installed, updates] = await Promise.all([
    listInstallableApps(actor),
    listInstalledApps(actor),
    listPendingUpdates(actor),
  ]);
  // Each installation is one place; its update, if any, is shown on its own entry.
  const updateOf = new Map(updates.map((u) => [u.installationId, u]));

  return (
    <>
      <PageHeader
        title="Marketplace"
        description="The apps installed where you work, once per place (the agency or a sub-account), and the ones you can still install."
      />
      <section aria-labelledby="installed-title" className="mb-10">
        <h2 id="installed-title" className="mb-3 text-lg font-semibold">
          Installed apps
        </h2>
        {installed.length === 0 ? (
          <p className="text-sm text-slate-600">No app is installed yet.</p>
        ) : (
          <ul className="space-y-3">
            {installed.map((i) => {
              const update = updateOf.get(i.installationId);
              return (
                <li key={i.installationId}>
                  <section
                    aria-label={`${i.appName} installed${update ? ", update available" : ""}`}
                    className={`${panelClass} flex flex-wrap items-start justify-between gap-4 p-4`}
                  >
                    <div>
                      <h3 className="font-medium">{i.appName}</h3>
                      <p className="text-sm text-slate-600">
                        {i.userType === "Company"
                          ? `Agency install${i.locations.length ? ` · ${i.locations.map((l) => l.name).join(", ")}` : ""}`
                          : `Sub-account install · ${i.locations.map((l) => l.name).join(", ")}`}
                      </p>
                      <p className="text-xs text-slate-500">
                        Authorized <LocalDate value={i.installedAt} />
                      </p>
                      {update ? <UpdateAvailable update={update} /> : null}
                    </div>
                    <div className="flex flex-wrap items-center gap-3">
                      {i.changeUrl ? (
                        // A plain link: the install screen is a full page outside this shell.
                        <a
                          href={i.changeUrl}
                          aria-label={`Change the sub-accounts of ${i.appName}`}
                          className={buttonClass("secondary")}
                        >
                          Change sub-accounts
                        </a>
                      ) : null}
                      {i.canUninstall ? (
                        <UninstallButton
                          action={uninstallAction}
                          installationId={i.installationId}
                          appName={i.appName}
                        />
                      ) : null}
                    </div>
                  </section>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section aria-labelledby="apps-title">
        <h2 id="apps-title" className="mb-3 text-lg font-semibold">
          Apps you can install
        </h2>
        {apps.length === 0 ? (
          <p className="text-sm text-slate-600">No app is available to you yet.</p>
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2">
            {apps.map((app) => (
              <li key={app.id}>
                <section
                  aria-label={app.name}
                  className={`${panelClass} flex h-full flex-col justify-between gap-3 p-4`}
                >
                  <div>
                    <h3 className="font-medium">{app.name}</h3>
                    <p className="text-xs text-slate-500">
                      by {app.developerName} · {installSettingLabels[app.installSetting]}
                    </p>
                    {app.description ? <p className="mt-2 text-sm text-slate-700">{app.description}</p> : null}
                    <p className="mt-2 text-xs text-slate-500">{app.scopes.join(", ")}</p>
                  </div>
                  <div>
                    {/* A plain link: the install screen is a full page outside this shell. */}
                    <a href={app.installUrl} aria-label={`Install ${app.name}`} className={buttonClass("primary")}>
                      Install
                    </a>
                  </div>
                </section>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
