import { json, otherMethods } from "@/lib/api/handler";
import { noStoreRoute } from "@/lib/oauth/http";
import { introspectToken } from "@/lib/oauth/introspect";

/** POST /oauth/introspect (RFC 7662). */
export const POST = noStoreRoute(async (request) => json(await introspectToken(request)));
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
