import { json } from "@/lib/api/handler";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { lifecycleOperation } from "@/lib/management-api/operations";
import { idempotencyKeyOf, rotateIntegration } from "@/lib/management-api/private-integrations";
import { apiRotateSchema } from "@/lib/management-api/shape";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * POST /private-integrations/{id}/rotate: a new token, shown once; the old one now or later. Both
   * rotations of the catalogue (`rotateNow`, `rotateLater`) are this one operation, told apart by `mode`.
   */
  POST: tokenRoute<{ id: string }>(
    lifecycleOperation("rotateNow", {
      body: { contentType: "application/json", name: "Rotation", schema: apiRotateSchema },
    }),
    async (request, { principal, params }) => {
      const key = idempotencyKeyOf(request);
      const body = await parseJson(request, apiRotateSchema);
      return json(await rotateIntegration(principal, params.id, body, new Date(), key));
    },
  ),
});
