import { z } from "zod";
import { bearerError } from "@/lib/api/bearer";
import { apiRoute, json } from "@/lib/api/handler";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { isOperatorKey, operatorGate } from "@/lib/cli/operator";
import { runCommand } from "@/lib/cli/run";
import { clientAddress } from "@/lib/client-address";
import { env } from "@/lib/env";

const bodySchema = z.strictObject({
  command: z.string().max(100),
  flags: z.record(z.string(), z.union([z.string(), z.literal(true), z.array(z.union([z.string(), z.literal(true)]))])),
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** The operator CLI's commands, for a CLI whose embedded database is held by this server. */
  POST: apiRoute(
    { internal: "the operator CLI's endpoint, for the server's own machine; not part of the public API" },
    async (request) => {
      const config = env();
      operatorGate.admit(
        clientAddress(request.headers, config.TRUSTED_PROXY_HOPS),
        config.OPERATOR_ALLOW_REMOTE,
        new Date(),
      );
      const presented = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
      if (!presented || !isOperatorKey(presented)) {
        throw bearerError("invalid_token", "This endpoint is for the operator CLI on the server's own machine.");
      }
      const { command, flags } = await parseJson(request, bodySchema);
      // A refusal of the command is an `invalid` Refusal: apiRoute answers it 400 invalid_request.
      return json(await runCommand(command, flags));
    },
  ),
});
