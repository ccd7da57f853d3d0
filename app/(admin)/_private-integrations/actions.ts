"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { pluralDays } from "@/components/private-integrations/format";
import type { IntegrationUsage } from "@/components/private-integrations/types";
import type { Actor } from "@/lib/accounts/permissions";
import { type ActionState, actorAction } from "@/lib/auth/actions";
import { formatDay } from "@/lib/dates/format";
import { keyReusedMessage, parseIdempotencyKey } from "@/lib/idempotency/keys";
import type { IntegrationOwner } from "@/lib/integrations/access";
import { lifecycleActions, type PlainLifecycleKind } from "@/lib/integrations/catalog";
import { parseRotationOverlap } from "@/lib/integrations/guard-rails";
import { confirmTokenShown } from "@/lib/integrations/idempotency";
import {
  createPrivateIntegration,
  type IssueOptions,
  lifecycleSteps,
  rotateLater,
  rotateNow,
  updatePrivateIntegration,
} from "@/lib/integrations/lifecycle";
import { previewMaximumTokenLifetime, setMaximumTokenLifetime } from "@/lib/integrations/maximum-lifetime";
import { privateIntegrationFormSchema } from "@/lib/integrations/schemas";
import { conflict, Refusal } from "@/lib/refusal";
import { integrationUsageDetails } from "@/lib/usage/integration-details";

/**
 * The server actions of both Private Integrations screens. A form with a `locationId` acts on that
 * sub-account's integrations, one without on the person's own agency's. Each parses its form with
 * zod and calls one lifecycle function, which checks on the server that the person may manage this
 * owner's integrations (own agency or sub-account, Labs on, permission), so a `locationId` typed
 * in by hand reaches nothing more than the sub-account's own screen does. A minted token goes back
 * only in the action's answer, for the show-once dialog: never in a URL, a cookie or the page.
 *
 * Create and both rotations carry the dialog's idempotency key (`idempotencyKey`, one per press of
 * its button, kept while it is open): sent again after a lost answer, the first answer comes back,
 * token included (lib/integrations/idempotency.ts). The dialog then says it showed the token
 * (`confirmShown`); until it does, the row may read `Token never shown`.
 */

const integrationId = z.string({ error: "Choose an integration." }).min(1).max(100);
const ownerFields = z.object({ locationId: z.string().min(1).max(100).optional() });
const target = ownerFields.extend({ integrationId });
/** Checked by parseIdempotencyKey, whose refusal says what a key is (above the form, not beside a field). */
const idempotencyField = { idempotencyKey: z.string().max(1000).optional() };

const sentBeforeMessage =
  "This was already sent with other values and went through, but its answer was lost on the way. Reload the page to see what was done.";

/** A token-minting call, with a key sent before for other values refused in the screen's words. */
async function issuing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Refusal && error.message === keyReusedMessage) throw conflict(sentBeforeMessage);
    throw error;
  }
}

/** The dialog's key, if sent: the answer is kept for it and the token counts as shown once the dialog says so. */
function issueOptions(key: string | undefined): IssueOptions & { echo: { confirmKey?: string } } {
  const idempotencyKey = parseIdempotencyKey(key);
  return idempotencyKey ? { idempotencyKey, confirmShown: true, echo: { confirmKey: idempotencyKey } } : { echo: {} };
}

function ownerOf(locationId: string | undefined, actor: Actor): IntegrationOwner {
  return locationId ? { level: "location", locationId } : { level: "agency", companyId: actor.companyId };
}

function done(owner: IntegrationOwner, result: ActionState): ActionState {
  revalidatePath(
    owner.level === "location"
      ? `/location/${owner.locationId}/settings/private-integrations`
      : "/settings/private-integrations",
  );
  return { ok: true, ...result };
}

/** Creating, rotating and deleting integrations and saving the maximum need a recent authentication. */
const guarded = { confirmIdentity: true } as const;

export const createIntegrationAction = actorAction(
  ownerFields.extend(privateIntegrationFormSchema.shape).extend(idempotencyField),
  async ({ idempotencyKey, ...input }, actor) => {
    const owner = ownerOf(input.locationId, actor);
    const { echo, ...options } = issueOptions(idempotencyKey);
    const { integration, token } = await issuing(() =>
      createPrivateIntegration(actor, owner, input, new Date(), options),
    );
    return done(owner, {
      message: `“${integration.name}” was created.`,
      data: { token, integrationId: integration.id, name: integration.name, ...echo },
    });
  },
  guarded,
);

export const updateIntegrationAction = actorAction(
  target.extend(privateIntegrationFormSchema.shape),
  async (input, actor) => {
    const owner = ownerOf(input.locationId, actor);
    const integration = await updatePrivateIntegration(actor, owner, input.integrationId, input);
    return done(owner, { message: `Saved “${integration.name}”. Its token did not change.` });
  },
);

export const rotateLaterAction = actorAction(
  target.extend({ overlapDays: z.string().max(10).optional(), ...idempotencyField }),
  async (input, actor) => {
    const owner = ownerOf(input.locationId, actor);
    const overlap = parseRotationOverlap(input.overlapDays);
    const { echo, ...options } = issueOptions(input.idempotencyKey);
    const { integration, token } = await issuing(() =>
      rotateLater(actor, owner, input.integrationId, new Date(), overlap, options),
    );
    const expiresAt = integration.previousToken?.expiresAt;
    return done(owner, {
      // No date here: the server does not know the viewer's time zone; the screen shows it.
      message: `“${integration.name}” is rotating: both tokens work for ${pluralDays(overlap)}.`,
      data: { token, oldTokenExpiresAt: expiresAt?.toISOString(), ...echo },
    });
  },
  guarded,
);

export const rotateNowAction = actorAction(
  target.extend(idempotencyField),
  async (input, actor) => {
    const owner = ownerOf(input.locationId, actor);
    const { echo, ...options } = issueOptions(input.idempotencyKey);
    const { integration, token } = await issuing(() =>
      rotateNow(actor, owner, input.integrationId, new Date(), undefined, options),
    );
    return done(owner, {
      message: `“${integration.name}” has a new token; the old one no longer works.`,
      data: { token, ...echo },
    });
  },
  guarded,
);

/**
 * The token dialog showed the token of the answer to `idempotencyKey`: the row no longer reads
 * `Token never shown` and the stored answer forgets the token. Nothing is revalidated (the row
 * read before it is not flagged yet: lib/integrations/views.ts › TOKEN_NEVER_SHOWN_AFTER_MS).
 */
export const confirmShownAction = actorAction(
  z.object({ idempotencyKey: z.string().min(1).max(200) }),
  async (input, actor) => {
    await confirmTokenShown(actor, input.idempotencyKey);
    return { ok: true };
  },
  { unreadable: "The token dialog sent no key." },
);

/**
 * A lifecycle action that reveals no token (lib/integrations/catalog.ts): its step, answered in the
 * catalogue's words (`done`).
 */
function plainAction(kind: PlainLifecycleKind, options?: { confirmIdentity: true }) {
  return actorAction(
    target,
    async (input, actor) => {
      const owner = ownerOf(input.locationId, actor);
      const { name } = await lifecycleSteps[kind](actor, owner, input.integrationId);
      return done(owner, { message: lifecycleActions[kind].done(name) });
    },
    options,
  );
}

export const expireNowAction = plainAction("expireNow");
export const cancelRotationAction = plainAction("cancelRotation");
export const removeAction = plainAction("remove", guarded);

/**
 * An integration's usage for its details, read when they open (ARCHITECTURE.md › Private
 * Integrations table): the same gate as the list, nothing changed, nothing revalidated.
 */
export const readUsageAction = actorAction(
  target,
  async (input, actor) => {
    const now = new Date();
    const usage = await integrationUsageDetails(actor, ownerOf(input.locationId, actor), input.integrationId, now);
    const { lastRefusal } = usage;
    const data: IntegrationUsage = {
      ...usage,
      readAt: now.toISOString(),
      lastRefusal: lastRefusal ? { ...lastRefusal, at: lastRefusal.at.toISOString() } : null,
    };
    return { ok: true, data: { usage: data } };
  },
  { unreadable: "This integration's usage could not be read; reload the page." },
);

/**
 * The agency's `Maximum token lifetime` (agency screen only: the agency is always the person's own).
 * Integrations with no expiry or a later one are capped to it in the same transaction.
 */
export const setMaximumLifetimeAction = actorAction(
  z.object({
    maximumTokenLifetimeDays: z.string().max(10).default(""),
    /** "yes" once the person saw how many integrations saving re-dates, and to which date. */
    confirmed: z.enum(["yes"]).optional(),
  }),
  async (input, actor) => {
    const owner: IntegrationOwner = { level: "agency", companyId: actor.companyId };
    if (!input.confirmed) {
      // SPEC.md: saving a maximum that would re-date integrations first says how many and to which date.
      const preview = await previewMaximumTokenLifetime(actor, input.maximumTokenLifetimeDays);
      if (preview.wouldCap > 0)
        return { ok: false, data: { confirm: true, wouldCap: preview.wouldCap, capTo: preview.capTo } };
    }
    const change = await setMaximumTokenLifetime(actor, input.maximumTokenLifetimeDays);
    const rule =
      change.maximumDays === null
        ? "There is no Maximum token lifetime: integrations may have no expiry."
        : `Maximum token lifetime saved: ${change.maximumDays} day${change.maximumDays === 1 ? "" : "s"}.`;
    const capped =
      change.capped > 0
        ? ` ${change.capped} integration${change.capped === 1 ? " now expires" : "s now expire"} on ${formatDay(change.cappedTo ?? "")}.`
        : "";
    return done(owner, { message: rule + capped, data: { maximumDays: change.maximumDays, capped: change.capped } });
  },
  guarded,
);
