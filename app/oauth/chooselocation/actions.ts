"use server";

import { z } from "zod";
import { actorAction, formAction } from "@/lib/auth/actions";
import { approveInstall, denyInstall } from "@/lib/oauth/authorize/approve";
import type { AuthorizeParams } from "@/lib/oauth/authorize/params";
import type { InstallTarget } from "@/lib/oauth/authorize/resolve-target";

const param = z.string().max(4000).optional();
const paramsSchema = z.object({
  response_type: param,
  client_id: param,
  redirect_uri: param,
  scope: param,
  state: param,
  code_challenge: param,
  code_challenge_method: param,
});
const approveSchema = paramsSchema.extend({
  level: z.enum(["agency", "location"]),
  locationIds: z.array(z.string().max(200)).max(1000).default([]),
  locationId: z.string().max(200).optional(),
  /** The "All sub-accounts" box, and "Also install on sub-accounts created later". */
  allLocations: z.literal("true").optional(),
  installToFutureLocations: z.literal("true").optional(),
});

function authorizeParams(input: z.infer<typeof paramsSchema>): AuthorizeParams {
  const { response_type, client_id, redirect_uri, scope, state, code_challenge, code_challenge_method } = input;
  return { response_type, client_id, redirect_uri, scope, state, code_challenge, code_challenge_method };
}

const incomplete = "The install form was incomplete. Open the install link again.";

/** Install: approve, then off to the app's redirect_uri with code and state. */
export const approveInstallAction = actorAction(
  approveSchema,
  async (input, actor) => {
    if (input.level === "location" && !input.locationId) {
      return { fieldErrors: { locationId: "Choose the sub-account to install the app in." } };
    }
    const target: InstallTarget =
      input.level === "agency"
        ? {
            level: "agency",
            locationIds: input.locationIds,
            allLocations: input.allLocations === "true",
            installToFutureLocations: input.installToFutureLocations === "true",
          }
        : { level: "location", locationId: input.locationId! };
    return { redirectTo: (await approveInstall({ actor, params: authorizeParams(input), target })).redirectTo };
  },
  { unreadable: incomplete, nextStep: "Then open the install link again." },
);

/** Cancel: back to the app with error=access_denied and the state. It needs no person: it changes nothing. */
export const cancelInstallAction = formAction(
  paramsSchema,
  async (input) => ({ redirectTo: await denyInstall(authorizeParams(input)) }),
  { unreadable: incomplete },
);
