"use server";

import type { ActionState } from "@/lib/auth/actions";
import { integrationActions } from "./integration-actions";

/** The agency's own integrations: the owner is always the signed-in person's agency. */
const agency = integrationActions({
  owner: (_locationId, actor) => ({ level: "agency", companyId: actor.companyId }),
  path: () => "/settings/private-integrations",
});

export async function createIntegration(prev: ActionState, form: FormData) {
  return agency.create(prev, form);
}
export async function updateIntegration(prev: ActionState, form: FormData) {
  return agency.update(prev, form);
}
export async function rotateIntegrationLater(prev: ActionState, form: FormData) {
  return agency.rotateLater(prev, form);
}
export async function rotateIntegrationNow(prev: ActionState, form: FormData) {
  return agency.rotateNow(prev, form);
}
export async function expireOldToken(prev: ActionState, form: FormData) {
  return agency.expireNow(prev, form);
}
export async function cancelIntegrationRotation(prev: ActionState, form: FormData) {
  return agency.cancelRotation(prev, form);
}
export async function deleteIntegration(prev: ActionState, form: FormData) {
  return agency.remove(prev, form);
}
