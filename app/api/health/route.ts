import { z } from "zod";
import { apiRoute, json } from "@/lib/api/handler";
import { routeMethods } from "@/lib/api/route-methods";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** Liveness, and the benchmark's ceiling: no database, no auth. */
  GET: apiRoute(
    {
      operationId: "health",
      tag: "Service",
      summary: "Liveness",
      description: "No database, no auth.",
      auth: "none",
      success: { status: 200, description: "Up.", name: "Health", schema: z.object({ status: z.literal("ok") }) },
      errors: {},
    },
    async () => json({ status: "ok" }),
  ),
});
