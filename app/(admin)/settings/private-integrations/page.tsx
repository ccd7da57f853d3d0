import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/_private-integrations/screen";

export const metadata: Metadata = { title: "Private Integrations" };

/** The agency's own integrations. */
export default function AgencyPrivateIntegrationsPage() {
  return <PrivateIntegrationsScreen />;
}
