import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { parseJson, parseQuery } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { visibilityRule } from "@/lib/management-api/operations";
import { createIntegration, idempotencyKeyOf, listIntegrations } from "@/lib/management-api/private-integrations";
import {
  apiCreateSchema,
  apiIssuedTokenSchema,
  apiListQuerySchema,
  apiPrivateIntegrationListSchema,
  callerRefusals,
  labsRefusal,
  widerGuardRailsRefusal,
} from "@/lib/management-api/shape";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /private-integrations: the agency's integrations, or one sub-account's (never tokens). */
  GET: tokenRoute(
    {
      operationId: "listPrivateIntegrations",
      tag: "Private integrations",
      summary: "List private integrations",
      description: `The agency's own private integrations, or with locationId one sub-account's, newest first. Never a token: tokenHint is its last four characters. ${visibilityRule} The others are left out (a sub-account outside them: 403).`,
      scope: "private-integrations.readonly",
      only: "agency_private_integration",
      query: apiListQuerySchema,
      success: {
        status: 200,
        description: "The integrations.",
        name: "PrivateIntegrationList",
        schema: apiPrivateIntegrationListSchema,
      },
      errors: tokenErrors("private-integrations.readonly", `${callerRefusals} ${labsRefusal}`, {
        invalid_request: "An unknown query parameter.",
        not_found: "locationId is not a sub-account of the caller's agency (another agency's answers the same).",
      }),
    },
    async (request, { principal }) => json(await listIntegrations(principal, parseQuery(request, apiListQuerySchema))),
  ),
  /** POST /private-integrations: a new integration and its first token, shown once. */
  POST: tokenRoute(
    {
      operationId: "createPrivateIntegration",
      tag: "Private integrations",
      summary: "Create a private integration",
      description:
        "As Create on the Private Integrations screen, with the same guard rails and the agency's Maximum token lifetime; the audit log names the calling integration. It can give only scopes it holds itself, never private-integrations.write, and no wider guard rails than its own (Sub-accounts, Allowed IP addresses, Expires). The answer holds the token, shown this once.",
      scope: "private-integrations.write",
      only: "agency_private_integration",
      idempotencyKey: true,
      body: { contentType: "application/json", name: "NewPrivateIntegration", schema: apiCreateSchema },
      success: {
        status: 201,
        description: "Created; store the token now.",
        name: "IssuedPrivateIntegrationToken",
        schema: apiIssuedTokenSchema,
      },
      errors: tokenErrors(
        "private-integrations.write",
        `${callerRefusals} ${labsRefusal} A scope the caller does not hold, or private-integrations.write. ${widerGuardRailsRefusal}`,
        {
          invalid_request:
            "Not JSON, a field of the wrong type or unknown, a scope not valid at the level, a bad guard rail, or under an agency maximum no expiresAt or one beyond it (the description names the maximum; fieldErrors names each field).",
          invalid_scope: "An unknown scope name.",
          not_found: "locationId is not a sub-account of the caller's agency.",
          conflict: "The Idempotency-Key was already used by this integration for another request (another body).",
        },
      ),
    },
    async (request, { principal }) => {
      const key = idempotencyKeyOf(request);
      const body = await parseJson(request, apiCreateSchema);
      return json(await createIntegration(principal, body, new Date(), key), { status: 201 });
    },
  ),
});
