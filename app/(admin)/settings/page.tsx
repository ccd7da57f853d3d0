import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { SettingsLinks } from "@/components/settings-links";
import { agencyNavigation } from "@/lib/accounts/navigation";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const actor = await requireActor();
  const links = agencyNavigation(actor).filter((l) => l.href !== "/settings");
  return (
    <>
      <PageHeader
        title={`Welcome, ${actor.name}`}
        description="Choose what to manage. Use the sub-account switcher above to work in one sub-account."
      />
      <SettingsLinks links={links} />
    </>
  );
}
