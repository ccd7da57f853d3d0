import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { ConfirmIdentityProvider } from "@/components/account/confirm-identity";
import { NavigationMenu } from "@/components/app-shell/navigation-menu";
import { LocationSwitcher } from "@/components/location-switcher";
import { NotificationsLink } from "@/components/notifications/notifications-link";
import { SettingsNav } from "@/components/settings-nav";
import { SignOutButton } from "@/components/sign-out-button";
import { agencyNavigation, locationNavigation, reachableLocations } from "@/lib/accounts/navigation";
import { isAgencyRole, roleLabels } from "@/lib/accounts/roles";
import { readShellFacts } from "@/lib/accounts/shell";
import { requireActor } from "@/lib/auth/session";
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
  // One query for the shell, shared with the page (the Private Integrations screen reads it too).
  const shell = await readShellFacts(actor.companyId, actor.id);
  if (!shell) throw new Error("The signed-in person's agency no longer exists.");
  const locations = reachableLocations(actor, shell.locations);
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
  const account = (
    <>
      <LocationSwitcher
        locations={locations.map(({ id, name }) => ({ id, name }))}
        current={currentLocation?.id}
        agencyView={isAgencyRole(actor.role)}
      />
      <NotificationsLink unread={shell.unread} />
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
            {shell.companyName}
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
