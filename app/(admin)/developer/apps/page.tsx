import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/page-header";
import { buttonClass } from "@/components/ui/button-styles";
import { NoPermission } from "@/components/ui/notice";
import { panelClass } from "@/components/ui/panel";
import { canManageApps, listDeveloperApps } from "@/lib/apps/registry";
import { installSettingLabels } from "@/lib/apps/settings";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Developer apps" };

export default async function DeveloperAppsPage() {
  const actor = await requireActor();
  if (!canManageApps(actor, actor.companyId)) {
    return (
      <NoPermission to="manage apps">
        Only the agency's owners and admins can create and change its marketplace apps.
      </NoPermission>
    );
  }
  const apps = await listDeveloperApps(actor);
  return (
    <>
      <PageHeader
        title="Apps"
        description="Marketplace apps your agency develops: their client credentials, redirect URIs, scopes and webhook."
        actions={
          <Link href="/developer/apps/new" className={buttonClass("primary")}>
            Create app
          </Link>
        }
      />
      {apps.length === 0 ? (
        <p className="text-sm text-slate-600">No app yet. Create one to get a client ID and secret.</p>
      ) : (
        <ul className={`${panelClass} divide-y divide-slate-100`}>
          {apps.map((app) => (
            <li key={app.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
              <div>
                <Link href={`/developer/apps/${app.id}`} className="font-medium text-brand-700 hover:underline">
                  {app.name}
                </Link>
                <p className="text-xs text-slate-500">
                  {installSettingLabels[app.installSetting]} · client ID <code>{app.clientId}</code> · secret …
                  {app.clientSecretHint}
                </p>
              </div>
              <span className="text-xs text-slate-500">{app.scopes.length} scopes</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
