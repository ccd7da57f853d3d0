import { json, noStore, otherMethods } from "@/lib/api/handler";
import { noStoreRoute } from "@/lib/oauth/http";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";

/** POST /oauth/token (RFC 6749 §3.2): the checks and grants live in lib/oauth. */
export const POST = noStoreRoute(async (request) => json(await tokenEndpoint(request), { headers: noStore }));
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
