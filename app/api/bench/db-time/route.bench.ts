import { apiRoute, json, noStore } from "@/lib/api/handler";
import { HttpError } from "@/lib/api/http-error";
import { routeMethods } from "@/lib/api/route-methods";
import { dbTiming, dbTimingEnabled } from "@/lib/db/timing";
import { stageTimes } from "@/lib/stage-timing";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /**
   * The cumulative time this process has spent in database calls, for `npm run bench`. Routed only
   * in the bench's own build: `route.bench.ts` is a route file only when next.config.mjs adds the
   * `bench.ts` page extension (BENCH_BUILD=1, which scripts/bench.ts sets for its build in
   * .next-bench), so a production build has no such path (SPEC.md: nothing built for benchmarks is
   * routed in production). Even there it answers only with BENCH_DB_TIMING=1 (404 otherwise).
   * `stages`: lib/stage-timing.ts's sums (empty unless BENCH_STAGE_TIMING=1).
   */
  GET: apiRoute(async () => {
    if (!dbTimingEnabled()) throw new HttpError("not_found", "No such endpoint.");
    return json({ ...dbTiming(), stages: stageTimes() }, { headers: noStore });
  }),
});
