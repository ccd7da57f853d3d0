import { z } from "zod";
import { screenOperation } from "@/lib/api/openapi/operation";

/** The install screen (page.tsx beside this), documented as the OAuth authorization endpoint. */
export const GET = screenOperation({
  operationId: "authorize",
  tag: "OAuth",
  summary: "Install screen (authorization endpoint)",
  description:
    "An HTML screen for a signed-in user (RFC 6749 §4.1.1). On Install the browser goes to redirect_uri?code=…&state=…; on Cancel to redirect_uri?error=access_denied&state=…. A bad client_id or redirect_uri shows an error screen and never redirects.",
  auth: "none",
  query: z.object({
    response_type: z.literal("code"),
    client_id: z.string(),
    redirect_uri: z.string().meta({ description: "Exactly one registered for the app." }),
    scope: z.string().optional().meta({ description: "Space-separated subset of the app's scopes; absent means all." }),
    state: z.string().optional(),
    code_challenge: z.string().optional(),
    code_challenge_method: z.literal("S256").optional(),
  }),
  success: { status: 200, description: "The install screen.", contentType: "text/html" },
  errors: {},
  screenErrors: {
    400: "An error screen: the client_id is unknown or the redirect_uri is not one registered for the app. It never redirects.",
    403: "An error screen: the app is Agency only and the signed-in person is not an agency owner or admin.",
  },
});
