import { requireCompanyToken } from "@/lib/api/bearer";
import { json, noStore, otherMethods } from "@/lib/api/handler";
import { withRateLimit } from "@/lib/api/token-route";
import { requireVersion } from "@/lib/api/version";
import { noStoreRoute } from "@/lib/oauth/http";
import { exchangeForLocationToken } from "@/lib/oauth/location-token";
import { readOAuthForm } from "@/lib/oauth/token-endpoint";

/**
 * POST /oauth/locationToken: a Company token of an agency install → a Location token. Counted by
 * the API's rate limits (the app per agency), after the token and before its level and scope.
 */
export const POST = noStoreRoute((request, context) =>
  withRateLimit(request, context, async (count) => {
    requireVersion(request);
    const principal = await requireCompanyToken(request, "oauth.write", { count });
    const form = await readOAuthForm(request);
    const body = await exchangeForLocationToken({ principal, form, traceId: context.traceId });
    return json(body, { headers: noStore });
  }),
);
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
