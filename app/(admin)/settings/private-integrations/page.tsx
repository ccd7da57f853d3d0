import type { Metadata } from "next";
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
import { PrivateIntegrationsScreen } from "./screen";

export const metadata: Metadata = { title: "Private Integrations" };

export default async function AgencyPrivateIntegrationsPage() {
  const actor = await requireActor();
  return (
    <PrivateIntegrationsScreen
      actor={actor}
      owner={{ level: "agency", companyId: actor.companyId }}
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
