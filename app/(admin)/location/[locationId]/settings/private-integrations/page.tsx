import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** One sub-account's integrations; the screen checks that the sub-account is the person's to manage. */
export default async function LocationPrivateIntegrationsPage({
  params,
  searchParams,
}: {
  params: Promise<{ locationId: string }>;
  searchParams: Promise<{ status?: string | string[] }>;
}) {
  const [{ locationId }, { status }] = await Promise.all([params, searchParams]);
  return <PrivateIntegrationsScreen locationId={locationId} status={typeof status === "string" ? status : undefined} />;
}
