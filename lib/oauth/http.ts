import { apiRoute, noStore } from "@/lib/api/handler";

/**
 * Route helpers of the OAuth endpoints. Token-bearing answers (and their errors) must not be
 * cached (RFC 6749 §5.1), so `noStoreRoute` sets Cache-Control: no-store on every response.
 */
type Handler = Parameters<typeof apiRoute<Record<string, never>>>[0];

export function noStoreRoute(handler: Handler) {
  const route = apiRoute(handler);
  return async (request: Request, context?: { params?: Promise<Record<string, never>> }) => {
    const response = await route(request, context);
    for (const [name, value] of Object.entries(noStore)) response.headers.set(name, value);
    return response;
  };
}
