import { json, noStore, otherMethods } from "@/lib/api/handler";
import { requireVersion } from "@/lib/api/version";
import { requireCompanyToken } from "@/lib/oauth/bearer";
import { noStoreRoute } from "@/lib/oauth/http";
import { exchangeForLocationToken } from "@/lib/oauth/location-token";
import { readOAuthForm } from "@/lib/oauth/token-endpoint";

/** POST /oauth/locationToken: a Company token of an agency install → a Location token. */
export const POST = noStoreRoute(async (request, { traceId }) => {
  requireVersion(request);
  const principal = await requireCompanyToken(request, "oauth.write");
  const form = await readOAuthForm(request);
  return json(await exchangeForLocationToken({ principal, form, traceId }), { headers: noStore });
});
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
