import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { parseQuery } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { visibilityRule } from "@/lib/management-api/operations";
import { integrationUsage } from "@/lib/management-api/private-integrations";
import {
  apiIntegrationIdSchema,
  apiUsageQuerySchema,
  apiUsageSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
} from "@/lib/management-api/shape";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /private-integrations/{id}/usage?days=1..90: its API requests per UTC day by outcome. */
  GET: tokenRoute<{ id: string }>(
    {
      operationId: "privateIntegrationUsage",
      tag: "Private integrations",
      summary: "A private integration's usage",
      description: `Its API requests per UTC day, the last \`days\` days (1 to 90, default 30) with today last, zeros included: ok (2xx), refused (4xx other than 429) and limited (429). ${visibilityRule} Another's usage is refused (403).`,
      scope: "private-integrations.readonly",
      only: "agency_private_integration",
      pathParams: apiIntegrationIdSchema,
      query: apiUsageQuerySchema,
      success: {
        status: 200,
        description: "Requests per day.",
        name: "PrivateIntegrationUsage",
        schema: apiUsageSchema,
      },
      errors: tokenErrors(
        "private-integrations.readonly",
        `${callerRefusals} ${labsRefusal} An integration outside the caller's chosen Sub-accounts.`,
        {
          invalid_request: "days is not a whole number from 1 to 90, or an unknown query parameter.",
          not_found: unknownIdRefusal,
        },
      ),
    },
    async (request, { principal, params }) =>
      json(await integrationUsage(principal, params.id, parseQuery(request, apiUsageQuerySchema).days)),
  ),
});
