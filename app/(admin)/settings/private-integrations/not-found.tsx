import { PrivateIntegrationsNotFound } from "@/app/(admin)/_private-integrations/not-found-screen";

export default function AgencyPrivateIntegrationsNotFound() {
  return <PrivateIntegrationsNotFound level="agency" />;
}
