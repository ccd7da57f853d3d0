import { revalidatePath } from "next/cache";
import { z } from "zod";
import { formatDateTime } from "@/components/private-integrations/format";
import type { Actor } from "@/lib/accounts/permissions";
import { type ActionState, actorAction } from "@/lib/auth/actions";
import type { IntegrationOwner } from "@/lib/integrations/access";
import {
  cancelRotation,
  createPrivateIntegration,
  deletePrivateIntegration,
  expireOldTokenNow,
  rotateLater,
  rotateNow,
  updatePrivateIntegration,
} from "@/lib/integrations/lifecycle";
import { privateIntegrationInputSchema } from "@/lib/integrations/schemas";

/**
 * The server actions of one Private Integrations screen. Each parses its form with zod and calls
 * one lifecycle function, which checks on the server that the person may manage this owner's
 * integrations (own agency, Labs on, permission). A minted token goes back only in the action's
 * answer, for the show-once dialog: never in a URL, a cookie or the re-rendered page.
 */
export interface OwnerBinding {
  /** Whose integrations, from the person and the form's `locationId` (checked by the lifecycle functions). */
  owner(locationId: string | undefined, actor: Actor): IntegrationOwner;
  path(owner: IntegrationOwner): string;
}

const integrationId = z.string({ error: "Choose an integration." }).min(1).max(100);

const ownerFields = z.object({ locationId: z.string().min(1).max(100).optional() });
const target = ownerFields.extend({ integrationId });

export function integrationActions(binding: OwnerBinding) {
  const done = (owner: IntegrationOwner, result: ActionState): ActionState => {
    revalidatePath(binding.path(owner));
    return { ok: true, ...result };
  };

  return {
    create: actorAction(ownerFields.extend(privateIntegrationInputSchema.shape), async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const { integration, token } = await createPrivateIntegration(actor, owner, input);
      return done(owner, {
        message: `“${integration.name}” was created.`,
        data: { token, integrationId: integration.id, name: integration.name },
      });
    }),

    update: actorAction(target.extend(privateIntegrationInputSchema.shape), async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const integration = await updatePrivateIntegration(actor, owner, input.integrationId, input);
      return done(owner, { message: `Saved “${integration.name}”. Its token did not change.` });
    }),

    rotateLater: actorAction(target, async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const { integration, token } = await rotateLater(actor, owner, input.integrationId);
      const expiresAt = integration.previousToken?.expiresAt;
      return done(owner, {
        message: `“${integration.name}” is rotating: both tokens work${expiresAt ? ` until ${formatDateTime(expiresAt)}` : ""}.`,
        data: { token, oldTokenExpiresAt: expiresAt?.toISOString() },
      });
    }),

    rotateNow: actorAction(target, async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const { integration, token } = await rotateNow(actor, owner, input.integrationId);
      return done(owner, {
        message: `“${integration.name}” has a new token; the old one no longer works.`,
        data: { token },
      });
    }),

    expireNow: actorAction(target, async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const integration = await expireOldTokenNow(actor, owner, input.integrationId);
      return done(owner, { message: `The old token of “${integration.name}” no longer works.` });
    }),

    cancelRotation: actorAction(target, async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const integration = await cancelRotation(actor, owner, input.integrationId);
      return done(owner, {
        message: `Rotation of “${integration.name}” cancelled: the new token no longer works; the old one does.`,
      });
    }),

    remove: actorAction(target, async (input, actor) => {
      const owner = binding.owner(input.locationId, actor);
      const deleted = await deletePrivateIntegration(actor, owner, input.integrationId);
      return done(owner, { message: `“${deleted.name}” was deleted; its tokens no longer work.` });
    }),
  };
}
