import { json } from "@/lib/api/handler";
import { methodNotAllowed, noStoreRoute } from "@/lib/oauth/http";
import { introspectToken } from "@/lib/oauth/introspect";

/** POST /oauth/introspect (RFC 7662). */
export const POST = noStoreRoute(async (request) => json(await introspectToken(request)));
export const GET = methodNotAllowed("POST");
