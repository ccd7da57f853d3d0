import { tokenErrors } from "@/lib/api/openapi/operation";
import type { TokenOperation } from "@/lib/api/token-route";
import {
  apiIntegrationIdSchema,
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
 * The operation of `POST /private-integrations/{id}/expire-now` and `…/cancel-rotation`: the two
 * ways a rotation ends take the same caller, scope, id and answer, and differ only in their words.
 */
export function rotationEndOperation(words: {
  operationId: string;
  summary: string;
  description: string;
  /** What the answer's integration is after it. */
  answer: string;
}): TokenOperation {
  return {
    operationId: words.operationId,
    tag: "Private integrations",
    summary: words.summary,
    description: `${words.description} ${coverRule}`,
    scope: "private-integrations.write",
    only: "agency_private_integration",
    pathParams: apiIntegrationIdSchema,
    success: {
      status: 200,
      description: words.answer,
      name: "PrivateIntegrationAnswer",
      schema: apiPrivateIntegrationAnswerSchema,
    },
    errors: tokenErrors("private-integrations.write", `${callerRefusals} ${labsRefusal} ${notCoveredRefusal}`, {
      not_found: unknownIdRefusal,
      conflict: "No rotation is in progress, or the integration is revoked.",
    }),
  };
}
