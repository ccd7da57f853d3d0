import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PageHeader } from "@/components/page-header";
import { SettingsLinks } from "@/components/settings-links";
import { findAccessibleLocation } from "@/lib/accounts/companies";
import { locationNavigation } from "@/lib/accounts/navigation";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Sub-account settings" };

export default async function LocationSettingsPage({ params }: { params: Promise<{ locationId: string }> }) {
  const { locationId } = await params;
  const actor = await requireActor();
  const location = await findAccessibleLocation(actor, locationId);
  // A 404 (../not-found.tsx): a page cannot set its status, notFound() does.
  if (!location) notFound();
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
