"use server";

import { integrationActions } from "@/app/(admin)/settings/private-integrations/integration-actions";
import type { ActionState } from "@/lib/auth/actions";
import { invalid } from "@/lib/errors";

/**
 * A sub-account's integrations. The sub-account id comes from the form, so the lifecycle functions
 * check it on every call: it must be of the person's agency and one they may manage.
 */
const location = integrationActions({
  owner: (locationId) => {
    if (!locationId) throw invalid("Open this from a sub-account's settings.");
    return { level: "location", locationId };
  },
  path: (owner) => (owner.level === "location" ? `/location/${owner.locationId}/settings/private-integrations` : "/"),
});

export async function createIntegration(prev: ActionState, form: FormData) {
  return location.create(prev, form);
}
export async function updateIntegration(prev: ActionState, form: FormData) {
  return location.update(prev, form);
}
export async function rotateIntegrationLater(prev: ActionState, form: FormData) {
  return location.rotateLater(prev, form);
}
export async function rotateIntegrationNow(prev: ActionState, form: FormData) {
  return location.rotateNow(prev, form);
}
export async function expireOldToken(prev: ActionState, form: FormData) {
  return location.expireNow(prev, form);
}
export async function cancelIntegrationRotation(prev: ActionState, form: FormData) {
  return location.cancelRotation(prev, form);
}
export async function deleteIntegration(prev: ActionState, form: FormData) {
  return location.remove(prev, form);
}
