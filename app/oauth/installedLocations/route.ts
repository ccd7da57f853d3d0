import { z } from "zod";
import { requireCompanyToken } from "@/lib/api/bearer";
import { apiRoute, json, otherMethods } from "@/lib/api/handler";
import { parseQuery } from "@/lib/api/parse";
import { withRateLimit } from "@/lib/api/token-route";
import { requireVersion } from "@/lib/api/version";
import { installedLocations } from "@/lib/oauth/installed-locations";

const querySchema = z.object({ companyId: z.string().max(200).optional(), appId: z.string().max(200).optional() });

/**
 * GET /oauth/installedLocations?companyId=…: the sub-accounts the app is installed on. An API call
 * with the app's Company token, so counted by the API's rate limits (the app per agency), after the
 * token and before its level, scope and query, like /oauth/locationToken.
 */
export const GET = apiRoute((request, context) =>
  withRateLimit(request, context, async (count) => {
    requireVersion(request);
    const principal = await requireCompanyToken(request, "oauth.readonly", { count });
    const query = parseQuery(request, querySchema);
    return json(await installedLocations(principal, query, context.traceId));
  }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
