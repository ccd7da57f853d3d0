// Over 250 lines on purpose: SPEC.md's lifecycle table, one function per row around one frame
// (changeIntegration), reads best in one place; the guard rails and the maximum live beside it.
import { recordAudit } from "@/lib/accounts/audit";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { type AuditAction, Prisma } from "@/lib/generated/prisma/client";
import { conflict, fieldErrorsOfRefusal, forbidden, invalidFields, notFound, Refusal } from "@/lib/refusal";
import {
  type IntegrationActor,
  type IntegrationOwner,
  isIntegrationActor,
  type LifecycleActor,
  type ResolvedOwner,
  requireIntegrationAccess,
} from "./access";
import {
  changedGuardRails,
  DEFAULT_ROTATION_OVERLAP_DAYS,
  type GuardRails,
  guardRailDetails,
  guardRailsFromInput,
  oldTokenExpiresAt,
  type RotationOverlapDays,
  readGuardRails,
  writeGuardRails,
} from "./guard-rails";
import {
  type CoveredAction,
  type Reach,
  requireCovers,
  requireNoEscalation,
  requireNoWiderReach,
} from "./no-escalation";
import { integrationInclude, notFoundMessage, ownerWhere, viewOf } from "./read";
import { guardRailsInputOf, type PrivateIntegrationInput, parseIntegrationInput } from "./schemas";
import { mintToken } from "./token";
import { currentToken, type IntegrationRow, livePreviousToken, type PrivateIntegrationView } from "./views";

/**
 * The private-integration lifecycle of SPEC.md, one function per row of its table, each a `Change`
 * run by `changeIntegration`. Every function checks the actor's access on the server (own agency,
 * Labs, permission), takes the clock as `now`, and writes its audit entry in the same transaction
 * as the change. Tokens are returned in plain text exactly once, by the functions that mint them;
 * only their keyed hash is stored.
 */

/** What a function that mints a token returns: the only time the token exists outside the caller's hands. */
export interface IssuedToken {
  integration: PrivateIntegrationView;
  /** The new token in plain text. Show it once; it cannot be recovered. */
  token: string;
}

/** The shape of every row of the table but Create and Edit. */
type Step<T> = (actor: LifecycleActor, owner: IntegrationOwner, integrationId: string, now?: Date) => Promise<T>;

/** A new token's row in the `current` slot: its keyed hash and hint, never the token. */
function currentSlot(minted: { tokenHash: string; hint: string }, now: Date) {
  return { slot: "current" as const, tokenHash: minted.tokenHash, hint: minted.hint, createdAt: now };
}

/** Who changed whose integration, for its audit entry: a person, or the integration that acted. */
export function auditBy(actor: LifecycleActor, owner: ResolvedOwner) {
  const by = isIntegrationActor(actor)
    ? { actorUserId: null, actorIntegrationId: actor.integrationId }
    : { actorUserId: actor.id, actorIntegrationId: null };
  return { companyId: owner.companyId, locationId: owner.locationId, ...by };
}

/** One row of SPEC.md's table, run by `changeIntegration` under the integration's row lock. */
interface Change {
  audit: AuditAction;
  /** What it does, for the rule that an integration acts only on integrations it covers. */
  acts: CoveredAction;
  /** Changes the locked row and answers its audit entry's details (a conflict is thrown). */
  apply(tx: Tx, row: IntegrationRow): Promise<Prisma.InputJsonObject>;
}

/**
 * The frame of every change to an integration: access, then in one transaction the row locked
 * (FOR UPDATE: concurrent changes of one integration run one after the other, each seeing the
 * other's result), the rule of cover for an integration acting, the change, its audit entry, the
 * row read back; answers its view (as it was, for Delete). `plan` sees the checked owner first
 * (Edit checks scopes against its level). The unique (integrationId, slot) index is the
 * backstop: at most one current and one previous token.
 */
async function changeIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date,
  plan: (resolved: ResolvedOwner) => Change,
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const change = plan(resolved);
  let changed: IntegrationRow;
  try {
    // Every lifecycle action changes what a token may do: see lib/db/read-cache.ts.
    changed = await changeCachedState(() =>
      db().$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "PrivateIntegration"
        WHERE id = ${integrationId} AND "companyId" = ${resolved.companyId}
        FOR UPDATE`;
        if (locked.length === 0) throw notFound(notFoundMessage);
        const before = await tx.privateIntegration.findFirst({
          where: { id: integrationId, ...ownerWhere(resolved) },
          include: integrationInclude,
        });
        if (!before) throw notFound(notFoundMessage);
        await requireActorCovers(tx, actor, before, change.acts);
        const details = await change.apply(tx, before);
        await recordAudit(tx, { ...auditBy(actor, resolved), action: change.audit, targetId: before.id, details });
        const after = await tx.privateIntegration.findUnique({
          where: { id: before.id },
          include: integrationInclude,
        });
        return after ?? before;
      }),
    );
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict("Someone changed this integration's tokens at the same moment; reload the page and try again.");
    }
    throw error;
  }
  return viewOf(resolved, changed, now);
}

/**
 * The reach of the integration acting (its guard rails as they are in `tx`, not as cached when its
 * token was verified), for `requireNoWiderReach` and `requireCovers`.
 */
async function reachOfActor(tx: Tx, actor: IntegrationActor): Promise<Reach> {
  const row = await tx.privateIntegration.findFirst({
    where: { id: actor.integrationId, companyId: actor.companyId },
    select: { locationId: true },
  });
  if (!row) throw forbidden("The calling integration was deleted while this request ran; it can no longer act.");
  return { locationId: row.locationId, ...(await readGuardRails(tx, actor.integrationId)) };
}

/**
 * An integration acting on another must cover it as it is now, under the row lock (no-escalation.ts
 * › requireCovers). Itself it always covers: skipped, so a principal verified just before a person
 * changed its scopes still rotates itself. People are not subject to it.
 */
async function requireActorCovers(tx: Tx, actor: LifecycleActor, row: IntegrationRow, acts: CoveredAction) {
  if (!isIntegrationActor(actor) || row.id === actor.integrationId) return;
  const target = { scopes: row.scopes, locationId: row.locationId, ...(await readGuardRails(tx, row.id)) };
  requireCovers({ scopes: actor.scopes, ...(await reachOfActor(tx, actor)) }, target, acts);
}

/**
 * The agency's `Maximum token lifetime`, read under a share lock on the agency's row: a create or
 * edit checked against it cannot commit past a concurrent change of it (which locks the row).
 */
async function lockedMaximumLifetime(tx: Tx, companyId: string): Promise<number | null> {
  const rows = await tx.$queryRaw<{ maximumTokenLifetimeDays: number | null }[]>`
    SELECT "maximumTokenLifetimeDays" FROM "Company" WHERE id = ${companyId} FOR SHARE`;
  return rows[0]?.maximumTokenLifetimeDays ?? null;
}

/**
 * The form's fields and its guard rails, checked together so that every invalid field is refused
 * at once, each beside its field (SPEC.md), not one per submit.
 */
async function checkedInput(
  tx: Tx,
  owner: ResolvedOwner,
  input: PrivateIntegrationInput,
  stored: GuardRails | null,
  maximum: number | null,
  now: Date,
) {
  const fieldErrors: Record<string, string> = {};
  const collect = (error: unknown) => {
    if (!(error instanceof Refusal) || !error.field) throw error;
    Object.assign(fieldErrors, fieldErrorsOfRefusal(error));
  };
  let data: ReturnType<typeof parseIntegrationInput> | undefined;
  let rails: GuardRails | undefined;
  try {
    data = parseIntegrationInput(input, owner.level);
  } catch (error) {
    collect(error);
  }
  try {
    const railsInput = data ?? guardRailsInputOf(input);
    rails = await guardRailsFromInput(tx, owner, railsInput, stored, maximum, now);
  } catch (error) {
    collect(error);
  }
  if (!data || !rails) throw invalidFields(fieldErrors);
  return { data, rails };
}

/**
 * Creates an integration with the scopes valid at its level, its guard rails and its first token,
 * shown once.
 */
export async function createPrivateIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  input: PrivateIntegrationInput,
  now: Date = new Date(),
): Promise<IssuedToken> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const minted = mintToken();
  // Under changeCachedState like every change of what a token may do (lib/db/read-cache.ts).
  const row = await changeCachedState(() =>
    db().$transaction(async (tx) => {
      const maximum = await lockedMaximumLifetime(tx, resolved.companyId);
      const { data, rails } = await checkedInput(tx, resolved, input, null, maximum, now);
      if (isIntegrationActor(actor)) {
        requireNoEscalation(actor.scopes, data.scopes);
        const result = { locationId: resolved.locationId, ...rails };
        requireNoWiderReach(await reachOfActor(tx, actor), { action: "create", result });
      }
      const created = await tx.privateIntegration.create({
        data: {
          ...ownerWhere(resolved),
          name: data.name,
          description: data.description,
          scopes: data.scopes,
          ...(isIntegrationActor(actor)
            ? { createdByUserId: null, createdByIntegrationId: actor.integrationId }
            : { createdByUserId: actor.id }),
          createdAt: now,
          tokens: { create: currentSlot(minted, now) },
        },
        select: { id: true },
      });
      await writeGuardRails(tx, created.id, rails);
      const details = { name: data.name, scopes: data.scopes, tokenHint: minted.hint, ...guardRailDetails(rails) };
      await recordAudit(tx, {
        ...auditBy(actor, resolved),
        action: "private_integration_created",
        targetId: created.id,
        details,
      });
      return tx.privateIntegration.findUniqueOrThrow({ where: { id: created.id }, include: integrationInclude });
    }),
  );
  return { integration: await viewOf(resolved, row, now), token: minted.token };
}

/**
 * `Edit`: name, description, scopes and guard rails. The token does not change; the new scopes and
 * guard rails apply at once (the cache of every instance is emptied when it commits).
 */
export async function updatePrivateIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  integrationId: string,
  input: PrivateIntegrationInput,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  return changeIntegration(actor, owner, integrationId, now, (resolved) => {
    return {
      audit: "private_integration_updated",
      acts: "edit",
      async apply(tx, before) {
        const stored = await readGuardRails(tx, before.id);
        const maximum = await lockedMaximumLifetime(tx, resolved.companyId);
        const { data, rails } = await checkedInput(tx, resolved, input, stored, maximum, now);
        // Giving is what escalates: the target is covered, so its scopes may stay (even .write).
        const added = data.scopes.filter((s) => !before.scopes.includes(s));
        if (isIntegrationActor(actor)) {
          requireNoEscalation(actor.scopes, added);
          requireNoWiderReach(await reachOfActor(tx, actor), {
            action: "edit",
            before: { locationId: before.locationId, ...stored },
            result: { locationId: before.locationId, ...rails },
            self: before.id === actor.integrationId,
          });
        }
        const after = await tx.privateIntegration.update({
          where: { id: before.id },
          data: { name: data.name, description: data.description, scopes: data.scopes },
        });
        const railsChanged = changedGuardRails(stored, rails);
        if (railsChanged.length) await writeGuardRails(tx, before.id, rails);
        return {
          ...(railsChanged.length ? { guardRailsChanged: railsChanged, ...guardRailDetails(rails) } : {}),
          name: after.name,
          ...(before.name !== after.name ? { renamedFrom: before.name } : {}),
          ...(before.description !== after.description ? { descriptionChanged: true } : {}),
          scopesAdded: after.scopes.filter((s) => !before.scopes.includes(s)),
          scopesRemoved: before.scopes.filter((s) => !after.scopes.includes(s)),
        };
      },
    };
  });
}

function requireCurrent(row: IntegrationRow) {
  const current = currentToken(row);
  // Every integration is created with a current token and every action keeps one.
  if (!current) throw conflict("This integration has no token; delete it and create a new one.");
  return current;
}

/** SPEC.md: a token minted for an expired integration would never work, so it is not minted. */
export const expiredRotationMessage =
  "This integration has expired, so a new token would never work: extend its expiry first (Extend expiry), then rotate.";

const rotationInProgress =
  "A rotation is already in progress: use “Expire Now” to stop the old token or “Cancel rotation” to keep it, then rotate again.";

/** What every action but `Rotate and expire this token now`, `Edit` and `Delete` answers while the integration is `Revoked`. */
export const revokedRefusal =
  "This integration's token was reported as leaked and revoked: use “Rotate and expire this token now” to issue a new token (or delete the integration).";

/**
 * `Rotate and expire this token now` on a `Revoked` integration: its tokens were all revoked when
 * it was reported as leaked; a new current token brings it back to `active`.
 */
async function restoreRevoked(
  tx: Tx,
  row: IntegrationRow,
  minted: { tokenHash: string; hint: string },
  now: Date,
): Promise<Prisma.InputJsonObject> {
  // Whatever slot a revoked token still held is freed (revocation already took them all out).
  await tx.privateIntegrationToken.updateMany({
    where: { integrationId: row.id, slot: { not: null } },
    data: { slot: null, revokedAt: now },
  });
  await tx.privateIntegrationToken.create({ data: { integrationId: row.id, ...currentSlot(minted, now) } });
  await tx.privateIntegration.update({ where: { id: row.id }, data: { revokedAt: null, revokedReason: null } });
  return { name: row.name, tokenHint: minted.hint, restoredFromRevoked: true, revokedReason: row.revokedReason ?? "" };
}

/**
 * Both rotations: a new current token, shown once. `later` keeps the old one working for the
 * chosen overlap (1, 3, 7, 14 or 30 days) from `now` (slot `previous`); `now` revokes it at once.
 */
function rotation(when: "later" | "now") {
  return async (
    actor: LifecycleActor,
    owner: IntegrationOwner,
    integrationId: string,
    now: Date = new Date(),
    overlapDays: RotationOverlapDays = DEFAULT_ROTATION_OVERLAP_DAYS,
  ): Promise<IssuedToken> => {
    const minted = mintToken();
    const integration = await changeIntegration(actor, owner, integrationId, now, () => ({
      audit: when === "later" ? "private_integration_rotated_later" : "private_integration_rotated_now",
      acts: "rotate",
      async apply(tx, row) {
        // A new token of an expired integration would never work: extend it first (revoked or not).
        if (row.expiresAt && row.expiresAt.getTime() <= now.getTime())
          throw conflict(expiredRotationMessage, "expires");
        if (row.revokedAt) {
          if (when === "later") throw conflict(revokedRefusal);
          return restoreRevoked(tx, row, minted, now);
        }
        if (livePreviousToken(row, now)) throw conflict(rotationInProgress);
        const current = requireCurrent(row);
        const expiresAt = when === "later" ? oldTokenExpiresAt(overlapDays, now) : null;
        // A previous token whose overlap has passed leaves its slot (it already stopped working).
        await tx.privateIntegrationToken.updateMany({
          where: { integrationId: row.id, slot: "previous" },
          data: { slot: null },
        });
        await tx.privateIntegrationToken.update({
          where: { id: current.id },
          data: expiresAt ? { slot: "previous", expiresAt } : { slot: null, revokedAt: now },
        });
        await tx.privateIntegrationToken.create({ data: { integrationId: row.id, ...currentSlot(minted, now) } });
        const details = { name: row.name, tokenHint: minted.hint, oldTokenHint: current.hint };
        return expiresAt ? { ...details, overlapDays, oldTokenExpiresAt: expiresAt.toISOString() } : details;
      },
    }));
    return { integration, token: minted.token };
  };
}

/** `Rotate and expire this token later`: a new token, shown once; the old one works for the chosen overlap (7 days unless chosen). */
export const rotateLater = rotation("later");

/** `Rotate and expire this token now`: a new token, shown once; the old one stops working at once. */
export const rotateNow = rotation("now");

const noRotation = "There is no rotation in progress for this integration (the old token may already have expired).";

/** The old token of the rotation in progress, which Expire Now and Cancel rotation act on; refused when there is none. */
function previousTokenOfRotation(row: IntegrationRow, now: Date) {
  if (row.revokedAt) throw conflict(revokedRefusal);
  const previous = livePreviousToken(row, now);
  if (!previous) throw conflict(noRotation);
  return previous;
}

/** `Expire Now` during a rotation: the old token stops working at once; the new one stays. */
export const expireOldTokenNow: Step<PrivateIntegrationView> = (actor, owner, id, now = new Date()) =>
  changeIntegration(actor, owner, id, now, () => ({
    audit: "private_integration_old_token_expired",
    acts: "expire-now",
    async apply(tx, row) {
      const previous = previousTokenOfRotation(row, now);
      await tx.privateIntegrationToken.update({ where: { id: previous.id }, data: { slot: null, revokedAt: now } });
      return { name: row.name, oldTokenHint: previous.hint };
    },
  }));

/** `Cancel rotation`: the new token stops working at once; the old one stays, with no expiry. */
export const cancelRotation: Step<PrivateIntegrationView> = (actor, owner, id, now = new Date()) =>
  changeIntegration(actor, owner, id, now, () => ({
    audit: "private_integration_rotation_cancelled",
    acts: "cancel-rotation",
    async apply(tx, row) {
      const previous = previousTokenOfRotation(row, now);
      const current = requireCurrent(row);
      await tx.privateIntegrationToken.update({ where: { id: current.id }, data: { slot: null, revokedAt: now } });
      await tx.privateIntegrationToken.update({
        where: { id: previous.id },
        data: { slot: "current", expiresAt: null },
      });
      return { name: row.name, cancelledTokenHint: current.hint, keptTokenHint: previous.hint };
    },
  }));

/** `Delete`: the integration and every token of it are gone at once. */
export const deletePrivateIntegration: Step<{ id: string; name: string }> = async (
  actor,
  owner,
  id,
  now = new Date(),
) => {
  const deleted = await changeIntegration(actor, owner, id, now, () => ({
    audit: "private_integration_deleted",
    acts: "delete",
    async apply(tx, row) {
      // Tokens go with it (ON DELETE CASCADE): no hash of a deleted integration is kept.
      await tx.privateIntegration.delete({ where: { id: row.id } });
      return { name: row.name, scopes: row.scopes };
    },
  }));
  return { id: deleted.id, name: deleted.name };
};
