import { type Handler as ApiHandler, apiRoute, noStore, setHeader } from "@/lib/api/handler";
import type { RouteDeclaration } from "@/lib/api/openapi/operation";

/**
 * Route helpers of the OAuth endpoints. Token-bearing answers (and their errors) must not be
 * cached (RFC 6749 §5.1), so `noStoreRoute` sets Cache-Control: no-store on every response (and
 * so the direct router never compresses them: lib/api/direct-router.ts says why).
 */
type Handler = ApiHandler<Record<string, never>>;

const noStoreHeaders = Object.entries(noStore);

export function noStoreRoute(declaration: RouteDeclaration, handler: Handler) {
  const route = apiRoute(declaration, handler);
  const withNoStore = async (request: Request, context?: { params?: Promise<Record<string, never>> }) => {
    const response = await route(request, context);
    // setHeader, not `headers.set`: reading a JsonResponse's `headers` builds its Headers.
    for (const [name, value] of noStoreHeaders) setHeader(response, name, value);
    return response;
  };
  return Object.assign(withNoStore, { declaration });
}
