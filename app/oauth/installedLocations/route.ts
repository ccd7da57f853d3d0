import { z } from "zod";
import { requireCompanyToken } from "@/lib/api/bearer";
import { apiRoute, json, otherMethods } from "@/lib/api/handler";
import { parseQuery } from "@/lib/api/parse";
import { requireVersion } from "@/lib/api/version";
import { installedLocations } from "@/lib/oauth/installed-locations";

const querySchema = z.object({ companyId: z.string().max(200).optional(), appId: z.string().max(200).optional() });

/** GET /oauth/installedLocations?companyId=…: the sub-accounts the app is installed on. */
export const GET = apiRoute(async (request, { traceId }) => {
  requireVersion(request);
  const principal = await requireCompanyToken(request, "oauth.readonly");
  const query = parseQuery(request, querySchema);
  return json(await installedLocations(principal, query, traceId));
});
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
