import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { LocationSwitcher } from "@/components/location-switcher";
import { NotificationsLink } from "@/components/notifications/notifications-link";
import { SettingsNav } from "@/components/settings-nav";
import { SignOutButton } from "@/components/sign-out-button";
import { companyName, listLocations } from "@/lib/accounts/companies";
import { agencyNavigation, locationNavigation, reachableLocations } from "@/lib/accounts/navigation";
import { isAgencyRole, roleLabels } from "@/lib/accounts/roles";
import { requireActor } from "@/lib/auth/session";
import { unreadNotificationCount } from "@/lib/reminders/notifications";

/** The signed-in shell: who you are, where you are, and only the links you may use. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  // Each page sends a person with a reset password to /settings/account (see requireActor).
  const actor = await requireActor({ passwordChangeRedirect: false });
  const path = ((await headers()).get("x-pathname") ?? "/").split("?")[0] ?? "/";
  const [agencyName, allLocations] = await Promise.all([companyName(actor.companyId), listLocations(actor.companyId)]);
  const locations = reachableLocations(actor, allLocations);
  const currentLocationId = /^\/location\/([^/]+)/.exec(path)?.[1];
  const currentLocation = locations.find((l) => l.id === currentLocationId);

  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-6 py-3">
          <Link href="/settings" className="font-semibold text-slate-900">
            {agencyName}
          </Link>
          <div className="flex flex-wrap items-center gap-4">
            <LocationSwitcher
              locations={locations.map(({ id, name }) => ({ id, name }))}
              current={currentLocation?.id}
              agencyView={isAgencyRole(actor.role)}
            />
            <NotificationsLink unread={unreadNotificationCount(actor.id)} />
            <span className="text-sm text-slate-600">
              {actor.name} · {roleLabels[actor.role]}
            </span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <div className="mx-auto flex max-w-6xl gap-8 px-6 py-8">
        <aside className="w-56 shrink-0 space-y-6">
          <SettingsNav title="Settings" links={agencyNavigation(actor)} current={path} />
          {currentLocation ? (
            <SettingsNav
              title={currentLocation.name}
              links={locationNavigation(actor, currentLocation)}
              current={path}
            />
          ) : null}
        </aside>
        <main className="min-w-0 flex-1">{children}</main>
      </div>
    </div>
  );
}
