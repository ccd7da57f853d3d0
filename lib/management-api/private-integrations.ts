import { requireAgencyPrivateIntegration, requireScope } from "@/lib/api/bearer";
import { HttpError } from "@/lib/api/http-error";
import { db } from "@/lib/db/client";
import { idempotencyKeyRule, parseIdempotencyKey } from "@/lib/idempotency/keys";
import type { IntegrationActor, IntegrationOwner } from "@/lib/integrations/access";
import type { PlainLifecycleKind } from "@/lib/integrations/catalog";
import * as lifecycle from "@/lib/integrations/lifecycle";
import { MANAGE_SCOPE, READ_SCOPE } from "@/lib/integrations/no-escalation";
import { getPrivateIntegration, listPrivateIntegrations } from "@/lib/integrations/read";
import type { PrivateIntegrationView } from "@/lib/integrations/views";
import { fieldErrorsOfRefusal, notFound, Refusal } from "@/lib/refusal";
import { isScope } from "@/lib/scopes";
import type { Principal } from "@/lib/tokens/principal";
import { integrationUsageDays, type UsageDay } from "@/lib/usage/read";
import {
  type ApiCreateInput,
  type ApiPrivateIntegration,
  type ApiRotateInput,
  type ApiUpdateInput,
  apiFieldName,
  DEFAULT_USAGE_DAYS,
  toApiIntegration,
  toFormInput,
} from "./shape";

/**
 * The management API of private integrations (SPEC.md › Private integrations under automation):
 * one function per operation, over the same lifecycle functions as the screens (lib/integrations/
 * lifecycle.ts: guard rails, agency maximum, audit log with the integration as actor, Labs, no
 * escalation). Each takes the verified Principal of the request and answers the API's shapes.
 */

/**
 * The calling integration as a lifecycle actor, or the refusal: only agency private integrations
 * use this API (an app's access token or a sub-account integration: 403 forbidden, before the
 * scope, since adding the scope would not help), and they need `.write` to change (`.readonly`,
 * or `.write`, which includes it, to read).
 */
export function integrationActorOf(principal: Principal, access: "read" | "write"): IntegrationActor {
  requireAgencyPrivateIntegration(principal);
  // Also checked by the routes' declarations (tokenRoute); here for every other caller of these functions.
  requireScope(principal, access === "write" ? MANAGE_SCOPE : READ_SCOPE);
  return {
    kind: "integration",
    integrationId: principal.integrationId as string,
    companyId: principal.companyId,
    scopes: principal.scopes,
    ...(principal.allowedLocationIds ? { allowedLocationIds: principal.allowedLocationIds } : {}),
  };
}

const unknownIntegration =
  "There is no private integration with this id in your agency. GET /private-integrations lists them.";

/** Whose integration `id` is, within the caller's agency; another agency's is unknown (404), like an id that never was. */
async function ownerOf(actor: IntegrationActor, id: string): Promise<IntegrationOwner> {
  const row =
    id.length <= 100
      ? await db().privateIntegration.findFirst({
          where: { id, companyId: actor.companyId },
          select: { locationId: true },
        })
      : null;
  if (!row) throw notFound(unknownIntegration);
  return row.locationId
    ? { level: "location", locationId: row.locationId }
    : { level: "agency", companyId: actor.companyId };
}

/**
 * The request's `Idempotency-Key` (POST create and rotate): the same key with the same request
 * within 24 hours answers the first answer, token included; with another request, 409 conflict.
 * Keys are the calling integration's own. A malformed one is a 400, before anything is looked up.
 */
export function idempotencyKeyOf(request: Request): string | undefined {
  const value = request.headers.get("idempotency-key");
  if (value === null) return undefined;
  try {
    return parseIdempotencyKey(value);
  } catch {
    throw new HttpError("invalid_request", `Idempotency-Key: ${idempotencyKeyRule}`);
  }
}

function ownerFor(actor: IntegrationActor, locationId: string | undefined): IntegrationOwner {
  return locationId ? { level: "location", locationId } : { level: "agency", companyId: actor.companyId };
}

/** An unknown scope name is a 400 invalid_scope (SPEC.md › Scopes), before anything is looked up. */
function requireKnownScopes(scopes: readonly string[] | undefined): void {
  const unknown = (scopes ?? []).filter((s) => !isScope(s));
  if (unknown.length) {
    throw new HttpError("invalid_scope", `Unknown scope: ${unknown.map((s) => s.slice(0, 60)).join(", ")}.`);
  }
}

/**
 * A form's field errors under the API's field names (expires → expiresAt, …), every one in
 * `fieldErrors`; the description names the first, as the HTTP frame's own 400s do ("field: …").
 */
async function withApiFieldNames<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Refusal) || error.kind !== "invalid" || !error.field) throw error;
    const fieldErrors = Object.fromEntries(
      Object.entries(fieldErrorsOfRefusal(error)).map(([field, message]) => [apiFieldName(field), message]),
    );
    const field = apiFieldName(error.field);
    throw new Refusal("invalid", `${field}: ${error.message}`, field, { fieldErrors });
  }
}

export async function listIntegrations(
  principal: Principal,
  query: { locationId?: string },
  now: Date = new Date(),
): Promise<{ privateIntegrations: ApiPrivateIntegration[] }> {
  const actor = integrationActorOf(principal, "read");
  const views = await listPrivateIntegrations(actor, ownerFor(actor, query.locationId), now);
  return { privateIntegrations: views.map(toApiIntegration) };
}

export async function createIntegration(
  principal: Principal,
  input: ApiCreateInput,
  now: Date = new Date(),
  idempotencyKey?: string,
): Promise<{ privateIntegration: ApiPrivateIntegration; token: string }> {
  const actor = integrationActorOf(principal, "write");
  requireKnownScopes(input.scopes);
  const issued = await withApiFieldNames(() =>
    lifecycle.createPrivateIntegration(
      actor,
      ownerFor(actor, input.locationId),
      toFormInput(input, { name: input.name, description: input.description ?? "", scopes: input.scopes }),
      now,
      { idempotencyKey },
    ),
  );
  return { privateIntegration: toApiIntegration(issued.integration), token: issued.token };
}

export async function updateIntegration(
  principal: Principal,
  id: string,
  input: ApiUpdateInput,
  now: Date = new Date(),
): Promise<{ privateIntegration: ApiPrivateIntegration }> {
  const actor = integrationActorOf(principal, "write");
  requireKnownScopes(input.scopes);
  const owner = await ownerOf(actor, id);
  // A field left out keeps its value: the edit form always sends name, description and scopes.
  const current = await getPrivateIntegration(actor, owner, id, now);
  const view = await withApiFieldNames(() =>
    lifecycle.updatePrivateIntegration(
      actor,
      owner,
      id,
      toFormInput(input, {
        name: input.name ?? current.name,
        description: current.description,
        scopes: input.scopes ?? current.scopes,
      }),
      now,
    ),
  );
  return { privateIntegration: toApiIntegration(view) };
}

export async function rotateIntegration(
  principal: Principal,
  id: string,
  input: ApiRotateInput,
  now: Date = new Date(),
  idempotencyKey?: string,
): Promise<{ privateIntegration: ApiPrivateIntegration; token: string }> {
  const actor = integrationActorOf(principal, "write");
  const owner = await ownerOf(actor, id);
  const issued =
    input.mode === "now"
      ? await lifecycle.rotateNow(actor, owner, id, now, undefined, { idempotencyKey })
      : await lifecycle.rotateLater(actor, owner, id, now, input.overlapDays, { idempotencyKey });
  return { privateIntegration: toApiIntegration(issued.integration), token: issued.token };
}

/**
 * A lifecycle action that reveals no token (lib/integrations/catalog.ts), by the integration
 * calling: the integration as it is after it, or nothing once it is gone (`Delete`, 204).
 */
export async function applyLifecycleAction(
  kind: PlainLifecycleKind,
  principal: Principal,
  id: string,
  now: Date = new Date(),
): Promise<{ privateIntegration: ApiPrivateIntegration } | undefined> {
  const actor = integrationActorOf(principal, "write");
  const owner = await ownerOf(actor, id);
  const done = await lifecycle.lifecycleSteps[kind](actor, owner, id, now);
  return isView(done) ? { privateIntegration: toApiIntegration(done) } : undefined;
}

/** A deleted integration answers only its id and name: there is nothing left to show. */
const isView = (done: PrivateIntegrationView | { id: string; name: string }): done is PrivateIntegrationView =>
  "status" in done;

/**
 * Requests per UTC day by outcome, the last `days` days (1 to 90, default 30), today last. Read as
 * the list reads: a caller limited to chosen Sub-accounts is refused (403) one outside them.
 */
export async function integrationUsage(
  principal: Principal,
  id: string,
  days: number = DEFAULT_USAGE_DAYS,
  now: Date = new Date(),
): Promise<{ days: UsageDay[] }> {
  const actor = integrationActorOf(principal, "read");
  await getPrivateIntegration(actor, await ownerOf(actor, id), id, now);
  return { days: await integrationUsageDays(id, days, now) };
}
