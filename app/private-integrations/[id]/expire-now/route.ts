import { routeMethods } from "@/lib/api/route-methods";
import { lifecycleRoute } from "@/lib/management-api/operations";

/** POST /private-integrations/{id}/expire-now: during a rotation, the old token stops working at once. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: lifecycleRoute("expireNow") });
