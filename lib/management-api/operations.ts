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
    description: words.description,
    scope: "private-integrations.write",
    only: "agency_private_integration",
    pathParams: apiIntegrationIdSchema,
    success: {
      status: 200,
      description: words.answer,
      name: "PrivateIntegrationAnswer",
      schema: apiPrivateIntegrationAnswerSchema,
    },
    errors: tokenErrors("private-integrations.write", `${callerRefusals} ${labsRefusal}`, {
      not_found: unknownIdRefusal,
      conflict: "No rotation is in progress, or the integration is revoked.",
    }),
  };
}
