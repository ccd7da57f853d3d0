import { z } from "zod";
import { apiRoute, json, noStore } from "@/lib/api/handler";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { countCredentialsCall, credentialsCaller } from "@/lib/credentials/limit";
import { revokeCredentialsSchema, revokeLeakedCredentials } from "@/lib/credentials/revoke";

// As documented, with examples; the handler parses with revokeCredentialsSchema (its messages).
const revokeCredentialsRequest = z
  .object({
    credentials: z
      .array(z.string())
      .min(1)
      .max(100)
      .meta({
        description: "1 to 100 private-integration (pit-…) or refresh tokens.",
        examples: [["pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"]],
      }),
  })
  .meta({ examples: [{ credentials: ["pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"] }] });
const revokeCredentialsAnswer = z
  .object({ received: z.number().int().min(1).max(100) })
  .meta({ examples: [{ received: 1 }] });

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /credentials/revoke: whoever holds a leaked token revokes it; 202 whatever the tokens were. */
  POST: apiRoute(
    {
      operationId: "revokeLeakedCredentials",
      tag: "Leaked tokens",
      summary: "Revoke leaked tokens (anyone who holds them)",
      description:
        "Unauthenticated: whoever holds a private-integration token (pit-…) or a refresh token may revoke it. Each live one stops working at once on every instance: a private integration becomes Revoked (reported as leaked; only Rotate and expire this token now brings it back with a new token), a refresh token takes its whole family with it. Every revocation is audited and notified. The answer is 202 with the number received, whatever the tokens were: it never says which were valid. At most 60 calls per hour per client address, this endpoint and /credentials/github-secret-scanning together, every call counted.",
      auth: "none",
      body: { contentType: "application/json", name: "RevokeCredentialsRequest", schema: revokeCredentialsRequest },
      success: {
        status: 202,
        description: "Received; every live token among them is revoked.",
        name: "RevokeCredentialsAnswer",
        schema: revokeCredentialsAnswer,
      },
      errors: {
        rate_limited: "More than 60 calls this hour from this address (Retry-After: seconds to the next hour).",
        invalid_request: "Not JSON, or credentials is not an array of 1 to 100 tokens (strings).",
      },
    },
    async (request) => {
      await countCredentialsCall(credentialsCaller(request.headers));
      const { credentials } = await parseJson(request, revokeCredentialsSchema);
      await revokeLeakedCredentials(credentials, "Reported as leaked through POST /credentials/revoke.");
      return json({ received: credentials.length }, { status: 202, headers: noStore });
    },
  ),
});
