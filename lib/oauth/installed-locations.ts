import { bearerError } from "@/lib/api/bearer";
import { db } from "@/lib/db/client";
import type { Principal } from "@/lib/tokens/principal";
import { invalidRequest } from "./errors";

/** GET /oauth/installedLocations: the sub-accounts the Company token's installation covers. */

export interface InstalledLocationsQuery {
  companyId?: string;
  appId?: string;
}

export async function installedLocations(principal: Principal, query: InstalledLocationsQuery, traceId: string) {
  if (!query.companyId) throw invalidRequest("companyId is required: the agency id your Company token was issued for.");
  if (query.companyId !== principal.companyId) {
    throw bearerError("forbidden", "companyId is not the agency this access token was issued for.");
  }
  if (query.appId !== undefined && query.appId !== principal.appId) {
    throw bearerError("forbidden", "appId is not the app this access token was issued to.");
  }
  const token = await db().accessToken.findUnique({
    where: { jti: principal.tokenId },
    select: {
      grant: {
        select: {
          installation: {
            select: {
              locations: {
                select: { location: { select: { id: true, name: true } } },
                orderBy: { location: { name: "asc" } },
              },
            },
          },
        },
      },
    },
  });
  const locations = (token?.grant.installation.locations ?? []).map(({ location }) => ({
    id: location.id,
    name: location.name,
    isInstalled: true,
  }));
  return { locations, count: locations.length, traceId };
}
