import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { SettingsLinks } from "@/components/settings-links";
import { BackLink, Notice } from "@/components/ui/notice";
import { findAccessibleLocation } from "@/lib/accounts/companies";
import { locationNavigation } from "@/lib/accounts/navigation";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Sub-account settings" };

export default async function LocationSettingsPage({ params }: { params: Promise<{ locationId: string }> }) {
  const { locationId } = await params;
  const actor = await requireActor();
  const location = await findAccessibleLocation(actor, locationId);
  if (!location) {
    return (
      <Notice title="Sub-account not found" tone="warning">
        <p>There is no sub-account here that you can open. Pick one from the sub-account switcher.</p>
        <BackLink href="/settings">Back to your settings</BackLink>
      </Notice>
    );
  }
  const links = locationNavigation(actor, location).filter((l) => !l.href.endsWith("/settings"));
  return (
    <>
      <PageHeader title={location.name} description="Settings of this sub-account." />
      {links.length ? (
        <SettingsLinks links={links} />
      ) : (
        <p className="text-sm text-slate-600">There is nothing here you can manage yet.</p>
      )}
    </>
  );
}
