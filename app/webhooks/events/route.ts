import { apiRoute, json, noStore, otherMethods } from "@/lib/api/handler";
import { parseQuery } from "@/lib/api/parse";
import { authenticateClientBasic } from "@/lib/oauth/client-auth";
import { listMissedEvents, missedEventsQuerySchema } from "@/lib/webhooks/missed-events";

/** GET /webhooks/events?after=…&limit=…: the app's events, oldest first (HTTP Basic client credentials). */
export const GET = apiRoute(async (request) => {
  const app = await authenticateClientBasic(request);
  const query = parseQuery(request, missedEventsQuerySchema);
  return json(await listMissedEvents(app.id, query), { headers: noStore });
});
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
