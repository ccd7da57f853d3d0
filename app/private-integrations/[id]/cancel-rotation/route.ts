import { routeMethods } from "@/lib/api/route-methods";
import { lifecycleRoute } from "@/lib/management-api/operations";

/** POST /private-integrations/{id}/cancel-rotation: the new token stops working; the old one stays. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({ POST: lifecycleRoute("cancelRotation") });
