import { z } from "zod";
import { apiRoute, json, otherMethods } from "@/lib/api/handler";

/** Liveness, and the benchmark's ceiling: no database, no auth. */
export const GET = apiRoute(
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
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
