import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { ConfirmIdentityProvider } from "@/components/account/confirm-identity";
import { NavigationMenu } from "@/components/app-shell/navigation-menu";
import { LocationSwitcher } from "@/components/location-switcher";
import { NotificationsLink } from "@/components/notifications/notifications-link";
import { SettingsNav } from "@/components/settings-nav";
import { SignOutButton } from "@/components/sign-out-button";
import { companyName, listLocations } from "@/lib/accounts/companies";
import { agencyNavigation, locationNavigation, reachableLocations } from "@/lib/accounts/navigation";
import { isAgencyRole, roleLabels } from "@/lib/accounts/roles";
import { requireActor } from "@/lib/auth/session";
import { unreadNotificationCount } from "@/lib/reminders/notifications";
import { confirmIdentityAction, confirmMethodAction, passkeyConfirmOptionsAction } from "./settings/account/actions";

/**
 * The signed-in shell: who you are, where you are, and only the links you may use. From the md
 * breakpoint (768 px) up the navigation is a sidebar; below it, it sits behind the `Menu` button
 * together with the sub-account switcher and the account controls.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  // Each page sends a person with a reset password to /settings/account (see requireActor).
  const actor = await requireActor({ passwordChangeRedirect: false });
  const path = ((await headers()).get("x-pathname") ?? "/").split("?")[0] ?? "/";
  const [agencyName, allLocations] = await Promise.all([companyName(actor.companyId), listLocations(actor.companyId)]);
  const locations = reachableLocations(actor, allLocations);
  const currentLocationId = /^\/location\/([^/]+)/.exec(path)?.[1];
  const currentLocation = locations.find((l) => l.id === currentLocationId);

  const navigation = (
    <>
      <SettingsNav title="Settings" links={agencyNavigation(actor)} current={path} />
      {currentLocation ? (
        <SettingsNav title={currentLocation.name} links={locationNavigation(actor, currentLocation)} current={path} />
      ) : null}
    </>
  );
  const unread = unreadNotificationCount(actor.id);
  const account = (
    <>
      <LocationSwitcher
        locations={locations.map(({ id, name }) => ({ id, name }))}
        current={currentLocation?.id}
        agencyView={isAgencyRole(actor.role)}
      />
      <NotificationsLink unread={unread} />
      <span className="text-sm text-slate-600">
        {actor.name} · {roleLabels[actor.role]}
      </span>
      <SignOutButton />
    </>
  );

  return (
    <div className="min-h-screen">
      <header className="relative border-b border-slate-200 bg-surface">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3 sm:px-6">
          <Link href="/settings" className="min-w-0 truncate font-semibold text-slate-900">
            {agencyName}
          </Link>
          <div className="hidden flex-wrap items-center justify-end gap-4 md:flex">{account}</div>
          <NavigationMenu>
            {navigation}
            <div className="flex flex-col items-start gap-3 border-t border-slate-200 pt-4">{account}</div>
          </NavigationMenu>
        </div>
      </header>
      <div className="mx-auto flex max-w-6xl gap-8 px-4 py-6 sm:px-6 md:py-8">
        <aside className="hidden w-56 shrink-0 space-y-6 md:block">{navigation}</aside>
        <main className="min-w-0 flex-1">
          <ConfirmIdentityProvider
            confirm={confirmIdentityAction}
            method={confirmMethodAction}
            passkeyOptions={passkeyConfirmOptionsAction}
          >
            {children}
          </ConfirmIdentityProvider>
        </main>
      </div>
    </div>
  );
}
