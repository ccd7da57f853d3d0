import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { type TokenOperation, tokenRoute } from "@/lib/api/token-route";
import {
  type LifecycleApi,
  type LifecycleKind,
  lifecycleActions,
  type PlainLifecycleKind,
} from "@/lib/integrations/catalog";
import { MANAGE_SCOPE } from "@/lib/integrations/no-escalation";
import { applyLifecycleAction } from "./private-integrations";
import {
  apiIntegrationIdSchema,
  apiIssuedTokenSchema,
  apiPrivateIntegrationAnswerSchema,
  callerRefusals,
  labsRefusal,
  unknownIdRefusal,
} from "./shape";

/**
 * The rule of cover (SPEC.md › Private integrations under automation; lib/integrations/
 * no-escalation.ts › requireCovers) as the document says it on every operation on one integration.
 */
export const coverRule =
  "The caller acts only on integrations it covers: every scope of the integration is one it holds, and its Sub-accounts, Allowed IP addresses and Expires are each within the caller's own (an integration covers itself).";

/** Its refusal, as the errors list it. */
export const notCoveredRefusal =
  "The integration is not one the caller covers: it holds a scope the caller does not, or reaches beyond the caller's Sub-accounts, Allowed IP addresses or Expires (the description names the rule and what to do).";

/**
 * What a caller limited to chosen Sub-accounts sees (lib/integrations/read.ts › isVisibleTo): the
 * list leaves the others out, and reading one of them is refused with the rule, not "not found".
 */
export const visibilityRule =
  "A caller limited to chosen Sub-accounts sees only integrations within them: agency integrations whose Sub-accounts are some of them, and sub-account integrations of one of them.";

/**
 * The operation of a lifecycle action's route, built from its catalogue entry (lib/integrations/
 * catalog.ts): the same caller, scope, id and refusals for each, its own words. One that reveals a
 * token takes an `Idempotency-Key` and answers the token (its body is its route's: `extra`); one
 * whose answer has `status: 204` answers nothing; the others answer the integration as it is now.
 */
export function lifecycleOperation(kind: LifecycleKind, extra: Pick<TokenOperation, "body"> = {}): TokenOperation {
  const { api, revealsToken } = lifecycleActions[kind];
  const refusals: LifecycleApi["refusals"] = "refusals" in api ? api.refusals : {};
  return {
    operationId: api.operationId,
    tag: "Private integrations",
    summary: api.summary,
    description: `${api.description} ${coverRule}`,
    scope: MANAGE_SCOPE,
    only: "agency_private_integration",
    pathParams: apiIntegrationIdSchema,
    ...(revealsToken ? { idempotencyKey: true } : {}),
    ...extra,
    success:
      "status" in api
        ? { status: api.status, description: api.answer }
        : revealsToken
          ? {
              status: 200,
              description: api.answer,
              name: "IssuedPrivateIntegrationToken",
              schema: apiIssuedTokenSchema,
            }
          : {
              status: 200,
              description: api.answer,
              name: "PrivateIntegrationAnswer",
              schema: apiPrivateIntegrationAnswerSchema,
            },
    errors: tokenErrors(MANAGE_SCOPE, `${callerRefusals} ${labsRefusal} ${notCoveredRefusal}`, {
      ...(refusals?.invalid_request ? { invalid_request: refusals.invalid_request } : {}),
      not_found: unknownIdRefusal,
      ...(refusals?.conflict ? { conflict: refusals.conflict } : {}),
    }),
  };
}

/**
 * The whole route of a lifecycle action that reveals no token: `POST: lifecycleRoute("expireNow")`.
 * It answers the integration as it is after the action, or 204 once it is gone.
 */
export function lifecycleRoute(kind: PlainLifecycleKind) {
  return tokenRoute<{ id: string }>(lifecycleOperation(kind), async (_request, { principal, params }) => {
    const answer = await applyLifecycleAction(kind, principal, params.id);
    return answer ? json(answer) : new Response(null, { status: 204 });
  });
}
