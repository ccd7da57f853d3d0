import { json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { rotationEndOperation } from "@/lib/management-api/operations";
import { cancelIntegrationRotation } from "@/lib/management-api/private-integrations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /private-integrations/{id}/cancel-rotation: the new token stops working; the old one stays. */
  POST: tokenRoute<{ id: string }>(
    rotationEndOperation({
      operationId: "cancelPrivateIntegrationRotation",
      summary: "Cancel a rotation",
      description:
        "As Cancel rotation on the screen: the new token stops working at once; the old one stays, with no end.",
      answer: "The integration, active again with its old token.",
    }),
    async (_request, { principal, params }) => json(await cancelIntegrationRotation(principal, params.id)),
  ),
});
