import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** The agency's own integrations. */
export default async function AgencyPrivateIntegrationsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  return <PrivateIntegrationsScreen searchParams={await searchParams} />;
}
