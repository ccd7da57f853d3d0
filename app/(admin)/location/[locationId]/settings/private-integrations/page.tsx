import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** One sub-account's integrations; the screen checks that the sub-account is the person's to manage. */
export default async function LocationPrivateIntegrationsPage({
  params,
  searchParams,
}: {
  params: Promise<{ locationId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { locationId } = await params;
  return <PrivateIntegrationsScreen locationId={locationId} searchParams={await searchParams} />;
}
