import { ApiError } from "@/lib/api/errors";
import { apiRoute, json, noStore, otherMethods } from "@/lib/api/handler";
import { dbTiming, dbTimingEnabled } from "@/lib/db/timing";

/**
 * Only with BENCH_DB_TIMING=1 (set by `npm run bench` on the server it starts): the cumulative
 * time this process has spent in database calls. Anywhere else it does not exist (404).
 */
export const GET = apiRoute(async () => {
  if (!dbTimingEnabled()) throw new ApiError("not_found", "No such endpoint.");
  return json(dbTiming(), { headers: noStore });
});
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
