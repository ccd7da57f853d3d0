import { json, otherMethods } from "@/lib/api/handler";
import { tokenRoute } from "@/lib/api/token-route";
import { getLocationForPrincipal } from "@/lib/locations/get-location";

/** GET /locations/{locationId}: the sub-account, for a token of it or of its agency. */
export const GET = tokenRoute<{ locationId: string }>({ scope: "locations.readonly" }, async (_request, context) =>
  json({ location: await getLocationForPrincipal(context.principal, context.params.locationId) }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
