import { otherMethods } from "@/lib/api/handler";
import { noStoreRoute } from "@/lib/oauth/http";
import { revokeToken } from "@/lib/oauth/revoke";

/** POST /oauth/revoke (RFC 7009): 200 with an empty body, also for tokens already dead. */
export const POST = noStoreRoute(async (request) => {
  await revokeToken(request);
  return new Response(null, { status: 200 });
});
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
