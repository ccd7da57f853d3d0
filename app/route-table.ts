import type { DeclaredRoute } from "@/lib/api/openapi/operation";
import { apiRoutes, documentedPages } from "./route-table.generated";

/**
 * The route table: every route of the HTTP API, which scripts/serve.mjs answers ahead of Next.js's
 * router with the modules' own handlers (lib/api/direct-router.ts says why). It is generated from
 * the folders (scripts/route-table.ts writes route-table.generated.ts, gitignored): every
 * app/**\/route.ts but the two left to Next.js (next-auth's sign-in and the catch-all 404), each
 * at its folder's path. Adding a route file is all it takes.
 */
export { apiRoutes };

/** What /openapi.json and /docs are built from: the routes and the screens documented as operations. */
export const documentedRoutes: DeclaredRoute[] = [...apiRoutes, ...documentedPages];
