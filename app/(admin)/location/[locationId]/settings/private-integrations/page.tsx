import type { Metadata } from "next";
import { PrivateIntegrationsScreen } from "@/app/(admin)/settings/private-integrations/screen";
import { requireActor } from "@/lib/auth/session";
import {
  cancelIntegrationRotation,
  createIntegration,
  deleteIntegration,
  expireOldToken,
  rotateIntegrationLater,
  rotateIntegrationNow,
  updateIntegration,
} from "./actions";

export const metadata: Metadata = { title: "Private Integrations" };

export default async function LocationPrivateIntegrationsPage({ params }: { params: Promise<{ locationId: string }> }) {
  const { locationId } = await params;
  const actor = await requireActor();
  return (
    <PrivateIntegrationsScreen
      actor={actor}
      owner={{ level: "location", locationId }}
      actions={{
        create: createIntegration,
        update: updateIntegration,
        rotateLater: rotateIntegrationLater,
        rotateNow: rotateIntegrationNow,
        expireNow: expireOldToken,
        cancelRotation: cancelIntegrationRotation,
        remove: deleteIntegration,
      }}
    />
  );
}
