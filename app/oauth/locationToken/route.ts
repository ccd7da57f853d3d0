import { z } from "zod";
import { json, noStore } from "@/lib/api/handler";
import { bearer401 } from "@/lib/api/openapi/operation";
import { routeMethods } from "@/lib/api/route-methods";
import { withRateLimit } from "@/lib/api/token-route";
import { tokenResponse } from "@/lib/oauth/documented-forms";
import { noStoreRoute } from "@/lib/oauth/http";
import { locationTokenEndpoint } from "@/lib/oauth/location-token";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * POST /oauth/locationToken: a Company token of an agency install → a Location token. Counted by
   * the API's rate limits (the app per agency), after the token and before its level and scope.
   */
  POST: noStoreRoute(
    {
      operationId: "locationToken",
      tag: "OAuth",
      summary: "Exchange a Company token for a Location token",
      description:
        "The Company access token must be of companyId and carry oauth.write; the app must be installed on locationId. The Location token's scope is the installation's sub-account-level scopes. Counted by the rate limits in the bucket of the app on the agency (the one its Company-token API calls use), after the token is verified and before its level, scope and body. A revocation, uninstall or re-install that runs at the same time either makes the exchange fail or revokes the Location token it issued.",
      auth: "bearer",
      version: true,
      rateLimited: true,
      scope: "oauth.write",
      body: {
        contentType: "application/x-www-form-urlencoded",
        name: "LocationTokenRequest",
        schema: z.object({ companyId: z.string(), locationId: z.string() }),
      },
      success: {
        status: 200,
        description: "A Location token.",
        name: "TokenResponse",
        schema: tokenResponse,
      },
      errors: {
        invalid_version: "Version header missing or not an accepted date.",
        invalid_token: bearer401,
        rate_limited: "Over the app's limits on this agency.",
        forbidden:
          "A Location or private-integration token, another company, a sub-account not of the company, or the app not installed there.",
        insufficient_scope: "The Company token lacks oauth.write.",
        invalid_request: "Not a form body, or companyId or locationId missing.",
      },
    },
    (request, context) =>
      withRateLimit(request, context, async (count) =>
        json(await locationTokenEndpoint(request, context.traceId, count), { headers: noStore }),
      ),
  ),
});
