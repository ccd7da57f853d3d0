import { z } from "zod";
import { apiRoute, json } from "@/lib/api/handler";
import { HttpError } from "@/lib/api/http-error";
import { routeMethods } from "@/lib/api/route-methods";
import { readiness } from "@/lib/db/readiness";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** Readiness (lib/db/readiness.ts): the database answers and every migration is applied. */
  GET: apiRoute(
    {
      operationId: "ready",
      tag: "Service",
      summary: "Readiness",
      description:
        "200 while the database answers and every migration this version ships is applied; 503 with the reason otherwise, and from the moment the server begins to shut down. For a load balancer's or an orchestrator's readiness probe; GET /api/health is the liveness probe (no database).",
      auth: "none",
      success: { status: 200, description: "Ready.", name: "Ready", schema: z.object({ status: z.literal("ready") }) },
      errors: {},
      unavailable:
        "Not ready: the database does not answer (within 2 seconds), a migration is not applied, or the server is shutting down. The description says which.",
    },
    async () => {
      const state = await readiness();
      if (state.ready) return json({ status: "ready" });
      throw new HttpError("server_error", state.reason, { status: 503, headers: { "retry-after": "5" } });
    },
  ),
});
