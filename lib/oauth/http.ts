import { type Handler as ApiHandler, apiRoute, noStore } from "@/lib/api/handler";
import type { RouteDeclaration } from "@/lib/api/openapi/operation";

/**
 * Route helpers of the OAuth endpoints. Token-bearing answers (and their errors) must not be
 * cached (RFC 6749 §5.1), so `noStoreRoute` sets Cache-Control: no-store on every response.
 */
type Handler = ApiHandler<Record<string, never>>;

export function noStoreRoute(declaration: RouteDeclaration, handler: Handler) {
  const route = apiRoute(declaration, handler);
  const withNoStore = async (request: Request, context?: { params?: Promise<Record<string, never>> }) => {
    const response = await route(request, context);
    for (const [name, value] of Object.entries(noStore)) response.headers.set(name, value);
    return response;
  };
  return Object.assign(withNoStore, { declaration });
}
