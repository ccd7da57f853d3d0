import { apiRoute, json } from "@/lib/api/handler";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { routeMethods } from "@/lib/api/route-methods";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /openapi.json: OpenAPI 3.1 of every public route, generated from the routes' declarations. */
  GET: apiRoute(
    {
      operationId: "openapi",
      tag: "Service",
      summary: "This document",
      description: "OpenAPI 3.1, generated from the routes' zod schemas. Readable at /docs.",
      auth: "none",
      success: { status: 200, description: "The OpenAPI document.", contentType: "application/json" },
      errors: {},
    },
    async () => {
      // Imported when asked: the route table imports this module.
      const { documentedRoutes } = await import("@/app/route-table");
      return json(buildOpenApiDocument(documentedRoutes), { headers: { "cache-control": "public, max-age=300" } });
    },
  ),
});
