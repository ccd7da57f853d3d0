import { json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { rotationEndOperation } from "@/lib/management-api/operations";
import { expireOldToken } from "@/lib/management-api/private-integrations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /private-integrations/{id}/expire-now: during a rotation, the old token stops working at once. */
  POST: tokenRoute<{ id: string }>(
    rotationEndOperation({
      operationId: "expireOldPrivateIntegrationToken",
      summary: "Expire the old token now",
      description:
        "As Expire Now on the screen, during a rotation: the old token stops working at once; the new one stays.",
      answer: "The integration, active again.",
    }),
    async (_request, { principal, params }) => json(await expireOldToken(principal, params.id)),
  ),
});
