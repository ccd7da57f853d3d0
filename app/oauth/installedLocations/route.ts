import { z } from "zod";
import { requireCompanyToken } from "@/lib/api/bearer";
import { apiRoute, json } from "@/lib/api/handler";
import { bearer401 } from "@/lib/api/openapi/operation";
import { parseQuery } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { withRateLimit } from "@/lib/api/token-route";
import { requireVersion } from "@/lib/api/version";
import { installedLocations } from "@/lib/oauth/installed-locations";

const querySchema = z.object({ companyId: z.string().max(200).optional(), appId: z.string().max(200).optional() });

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * GET /oauth/installedLocations?companyId=…: the sub-accounts the app is installed on. An API call
   * with the app's Company token, so counted by the API's rate limits (the app per agency), after the
   * token and before its level, scope and query, like /oauth/locationToken.
   */
  GET: apiRoute(
    {
      operationId: "installedLocations",
      tag: "OAuth",
      summary: "Sub-accounts the app is installed on",
      description:
        "For a Company access token with oauth.readonly, of companyId. Counted by the rate limits in the bucket of the app on the agency, after the token is verified and before its level, scope and query.",
      auth: "bearer",
      version: true,
      rateLimited: true,
      scope: "oauth.readonly",
      query: z.object({ companyId: z.string(), appId: z.string().optional() }),
      success: {
        status: 200,
        description: "The sub-accounts.",
        name: "InstalledLocations",
        schema: z.object({
          locations: z.array(z.object({ id: z.string(), name: z.string(), isInstalled: z.boolean() })),
          count: z.number().int(),
          traceId: z.string(),
        }),
      },
      errors: {
        invalid_version: "Version header missing or not an accepted date.",
        invalid_token: bearer401,
        rate_limited: "Over the app's limits on this agency.",
        forbidden: "Not a Company access token, or companyId/appId is not the token's.",
        insufficient_scope: "The Company token lacks oauth.readonly.",
        invalid_request: "companyId missing.",
      },
    },
    (request, context) =>
      withRateLimit(request, context, async (count) => {
        requireVersion(request);
        const principal = await requireCompanyToken(request, "oauth.readonly", { count });
        const query = parseQuery(request, querySchema);
        return json(await installedLocations(principal, query, context.traceId));
      }),
  ),
});
