import { json, noStore } from "@/lib/api/handler";
import { methodNotAllowed, noStoreRoute } from "@/lib/oauth/http";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";

/** POST /oauth/token (RFC 6749 §3.2): the checks and grants live in lib/oauth. */
export const POST = noStoreRoute(async (request) => json(await tokenEndpoint(request), { headers: noStore }));
export const GET = methodNotAllowed("POST");
