import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** One sub-account's integrations; the screen checks that the sub-account is the person's to manage. */
export default async function LocationPrivateIntegrationsPage({ params }: { params: Promise<{ locationId: string }> }) {
  const { locationId } = await params;
  return <PrivateIntegrationsScreen locationId={locationId} />;
}
