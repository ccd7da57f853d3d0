import { json, otherMethods } from "@/lib/api/handler";
import { tokenRoute } from "@/lib/api/token-route";
import { rotationEndOperation } from "@/lib/management-api/operations";
import { cancelIntegrationRotation } from "@/lib/management-api/private-integrations";

/** POST /private-integrations/{id}/cancel-rotation: the new token stops working; the old one stays. */
export const POST = tokenRoute<{ id: string }>(
  rotationEndOperation({
    operationId: "cancelPrivateIntegrationRotation",
    summary: "Cancel a rotation",
    description:
      "As Cancel rotation on the screen: the new token stops working at once; the old one stays, with no end.",
    answer: "The integration, active again with its old token.",
  }),
  async (_request, { principal, params }) => json(await cancelIntegrationRotation(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
