import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { coverRule, lifecycleRoute, notCoveredRefusal, visibilityRule } from "@/lib/management-api/operations";
import { updateIntegration } from "@/lib/management-api/private-integrations";
import {
  apiIntegrationIdSchema,
  apiPrivateIntegrationAnswerSchema,
  apiUpdateSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
  widerGuardRailsRefusal,
} from "@/lib/management-api/shape";

type Params = { id: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** PATCH /private-integrations/{id}: Edit; the token does not change. */
  PATCH: tokenRoute<Params>(
    {
      operationId: "updatePrivateIntegration",
      tag: "Private integrations",
      summary: "Edit a private integration",
      description: `As Edit on the screen: name, description, scopes and guard rails; a field left out keeps its value. The token does not change and works with the new scopes at once. ${coverRule} ${visibilityRule} A scope added must be one the caller holds, never private-integrations.write. The integration edited must stay within the caller's own guard rails, and an integration cannot change its own guard rails (a person can).`,
      scope: "private-integrations.write",
      only: "agency_private_integration",
      pathParams: apiIntegrationIdSchema,
      body: { contentType: "application/json", name: "PrivateIntegrationChanges", schema: apiUpdateSchema },
      success: {
        status: 200,
        description: "The integration as it is now.",
        name: "PrivateIntegrationAnswer",
        schema: apiPrivateIntegrationAnswerSchema,
      },
      errors: tokenErrors(
        "private-integrations.write",
        `${callerRefusals} ${labsRefusal} ${notCoveredRefusal} Outside the caller's chosen Sub-accounts. Adding a scope the caller does not hold, or private-integrations.write. ${widerGuardRailsRefusal} A change of the caller's own guard rails.`,
        {
          invalid_request:
            "Not JSON, no field, a field of the wrong type or unknown, or a bad guard rail (an expiresAt beyond the agency maximum names it).",
          invalid_scope: "An unknown scope name.",
          not_found: unknownIdRefusal,
        },
      ),
    },
    async (request, { principal, params }) =>
      json(await updateIntegration(principal, params.id, await parseJson(request, apiUpdateSchema))),
  ),
  /** DELETE /private-integrations/{id}: the integration and every token of it, at once. */
  DELETE: lifecycleRoute("remove"),
});
