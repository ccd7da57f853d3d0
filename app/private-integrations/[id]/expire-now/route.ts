import { json, otherMethods } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { tokenRoute } from "@/lib/api/token-route";
import { expireOldToken } from "@/lib/management-api/private-integrations";
import {
  apiIntegrationIdSchema,
  apiPrivateIntegrationAnswerSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
} from "@/lib/management-api/shape";

/** POST /private-integrations/{id}/expire-now: during a rotation, the old token stops working at once. */
export const POST = tokenRoute<{ id: string }>(
  {
    operationId: "expireOldPrivateIntegrationToken",
    tag: "Private integrations",
    summary: "Expire the old token now",
    description:
      "As Expire Now on the screen, during a rotation: the old token stops working at once; the new one stays.",
    scope: "private-integrations.write",
    only: "agency_private_integration",
    pathParams: apiIntegrationIdSchema,
    success: {
      status: 200,
      description: "The integration, active again.",
      name: "PrivateIntegrationAnswer",
      schema: apiPrivateIntegrationAnswerSchema,
    },
    errors: tokenErrors("private-integrations.write", `${callerRefusals} ${labsRefusal}`, {
      not_found: unknownIdRefusal,
      conflict: "No rotation is in progress, or the integration is revoked.",
    }),
  },
  async (_request, { principal, params }) => json(await expireOldToken(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
