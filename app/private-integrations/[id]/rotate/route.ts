import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { coverRule, notCoveredRefusal } from "@/lib/management-api/operations";
import { idempotencyKeyOf, rotateIntegration } from "@/lib/management-api/private-integrations";
import {
  apiIntegrationIdSchema,
  apiIssuedTokenSchema,
  apiRotateSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
} from "@/lib/management-api/shape";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /private-integrations/{id}/rotate: a new token, shown once; the old one now or later. */
  POST: tokenRoute<{ id: string }>(
    {
      operationId: "rotatePrivateIntegration",
      tag: "Private integrations",
      summary: "Rotate a private integration's token",
      description: `mode "now": Rotate and expire this token now (the old token stops working at once; also brings a Revoked integration back). mode "later": Rotate and expire this token later (both work for overlapDays, 7 unless given; the integration reads rotating). The answer holds the new token, shown this once. ${coverRule}`,
      scope: "private-integrations.write",
      only: "agency_private_integration",
      pathParams: apiIntegrationIdSchema,
      idempotencyKey: true,
      body: { contentType: "application/json", name: "Rotation", schema: apiRotateSchema },
      success: {
        status: 200,
        description: "Rotated; store the new token now.",
        name: "IssuedPrivateIntegrationToken",
        schema: apiIssuedTokenSchema,
      },
      errors: tokenErrors("private-integrations.write", `${callerRefusals} ${labsRefusal} ${notCoveredRefusal}`, {
        invalid_request: "Not JSON, or not one of the two modes, or an overlapDays other than 1, 3, 7, 14 or 30.",
        not_found: unknownIdRefusal,
        conflict:
          "A rotation is already in progress, the integration has expired (extend it first), it is revoked and mode is later, or the Idempotency-Key was already used by this integration for another request.",
      }),
    },
    async (request, { principal, params }) => {
      const key = idempotencyKeyOf(request);
      const body = await parseJson(request, apiRotateSchema);
      return json(await rotateIntegration(principal, params.id, body, new Date(), key));
    },
  ),
});
