import { z } from "zod";
import { json } from "@/lib/api/handler";
import { exampleId, tokenErrors } from "@/lib/api/openapi/operation";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { locationForPrincipal, locationSchema } from "@/lib/locations/get-location";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /locations/{locationId}: the sub-account, for a token of it or of its agency. */
  GET: tokenRoute<{ locationId: string }>(
    {
      scope: "locations.readonly",
      operationId: "getLocation",
      tag: "Sub-accounts",
      summary: "Get a sub-account",
      description:
        "Allowed: a Location token or sub-account private integration of that sub-account, a Company token or agency private integration of its agency. Anything else is 403 forbidden whether or not the sub-account exists.",
      pathParams: z.object({ locationId: exampleId("cm3x5loc0000001") }),
      success: {
        status: 200,
        description: "The sub-account.",
        name: "LocationResponse",
        schema: z.object({ location: locationSchema }),
      },
      errors: tokenErrors(
        "locations.readonly",
        "The token is not of this sub-account or its agency, or the sub-account does not exist, or it is an agency private integration whose chosen Sub-accounts do not include it.",
      ),
    },
    (_request, context) => {
      // A cached sub-account is answered at once: no promise made or waited for.
      const found = locationForPrincipal(context.principal, context.params.locationId);
      return found instanceof Promise ? found.then((location) => json({ location })) : json({ location: found });
    },
  ),
});
