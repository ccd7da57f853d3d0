import { PrivateIntegrationsNotFound } from "@/app/(admin)/_private-integrations/not-found-screen";

export default function LocationPrivateIntegrationsNotFound() {
  return <PrivateIntegrationsNotFound level="location" />;
}
