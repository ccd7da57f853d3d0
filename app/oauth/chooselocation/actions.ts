"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { type ActionState, actingPerson, actionError, formDataToObject } from "@/lib/actions";
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

/** Install: approve, then off to the app's redirect_uri with code and state. */
export async function approveInstallAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  // Not actorAction: Install ends in a redirect, which must not pass through its error mapping.
  const person = await actingPerson();
  if ("error" in person) return { error: `${person.error} Then open the install link again.` };
  const { actor } = person;
  const parsed = approveSchema.safeParse(formDataToObject(formData));
  if (!parsed.success) return { error: "The install form was incomplete. Open the install link again." };
  const input = parsed.data;
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
  let redirectTo: string;
  try {
    redirectTo = (await approveInstall({ actor, params: authorizeParams(input), target })).redirectTo;
  } catch (error) {
    return actionError(error);
  }
  redirect(redirectTo);
}

/** Cancel: back to the app with error=access_denied and the state. */
export async function cancelInstallAction(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const parsed = paramsSchema.safeParse(formDataToObject(formData));
  if (!parsed.success) return { error: "The install form was incomplete. Open the install link again." };
  let redirectTo: string;
  try {
    redirectTo = await denyInstall(authorizeParams(parsed.data));
  } catch (error) {
    return actionError(error);
  }
  redirect(redirectTo);
}
