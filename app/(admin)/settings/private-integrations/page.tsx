import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** The agency's own integrations. */
export default async function AgencyPrivateIntegrationsPage({
  searchParams,
}: {
  searchParams: Promise<{ status?: string | string[] }>;
}) {
  const { status } = await searchParams;
  return <PrivateIntegrationsScreen status={typeof status === "string" ? status : undefined} />;
}
