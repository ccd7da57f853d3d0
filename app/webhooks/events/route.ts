import { apiRoute, json, noStore } from "@/lib/api/handler";
import { parseQuery } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { authenticateClientBasic } from "@/lib/oauth/client-auth";
import { listMissedEvents, missedEventsPageSchema, missedEventsQuerySchema } from "@/lib/webhooks/missed-events";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /webhooks/events?after=…&limit=…: the app's events, oldest first (HTTP Basic client credentials). */
  GET: apiRoute(
    {
      operationId: "listWebhookEvents",
      tag: "Webhooks",
      summary: "Missed events: the app's events, oldest first",
      description:
        "Authenticated with the app's client_id and client_secret as HTTP Basic. Lists the app's webhook events (delivered, pending or failed) oldest first, each with its payload exactly as delivered. Pass nextCursor as after for the next page; it is absent at the end. To resume later, pass the webhookId of the last event processed as after. An event is listed once every transaction that began before its own has ended, so a cursor never skips one. Events are kept at least 30 days.",
      auth: "basic",
      query: missedEventsQuerySchema,
      success: {
        status: 200,
        description: "A page of events.",
        name: "WebhookEventsPage",
        schema: missedEventsPageSchema,
      },
      errors: {
        invalid_client: "No HTTP Basic credentials, or they do not match an app (WWW-Authenticate: Basic).",
        invalid_request:
          "after is not a cursor or webhookId of this app, limit is not 1 to 500, or a parameter is unknown or repeated.",
      },
    },
    async (request) => {
      const app = await authenticateClientBasic(request);
      const query = parseQuery(request, missedEventsQuerySchema);
      return json(await listMissedEvents(app.id, query), { headers: noStore });
    },
  ),
});
