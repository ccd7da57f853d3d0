import { json, otherMethods } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { tokenRoute } from "@/lib/api/token-route";
import { cancelIntegrationRotation } from "@/lib/management-api/private-integrations";
import {
  apiIntegrationIdSchema,
  apiPrivateIntegrationAnswerSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
} from "@/lib/management-api/shape";

/** POST /private-integrations/{id}/cancel-rotation: the new token stops working; the old one stays. */
export const POST = tokenRoute<{ id: string }>(
  {
    operationId: "cancelPrivateIntegrationRotation",
    tag: "Private integrations",
    summary: "Cancel a rotation",
    description:
      "As Cancel rotation on the screen: the new token stops working at once; the old one stays, with no end.",
    scope: "private-integrations.write",
    only: "agency_private_integration",
    pathParams: apiIntegrationIdSchema,
    success: {
      status: 200,
      description: "The integration, active again with its old token.",
      name: "PrivateIntegrationAnswer",
      schema: apiPrivateIntegrationAnswerSchema,
    },
    errors: tokenErrors("private-integrations.write", `${callerRefusals} ${labsRefusal}`, {
      not_found: unknownIdRefusal,
      conflict: "No rotation is in progress, or the integration is revoked.",
    }),
  },
  async (_request, { principal, params }) => json(await cancelIntegrationRotation(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
