// Over 250 lines on purpose: SPEC.md's lifecycle table, one function per row around one frame
// (changeIntegration), reads best in one place; the guard rails and the maximum live beside it.
import { recordAudit } from "@/lib/accounts/audit";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { type AuditAction, Prisma } from "@/lib/generated/prisma/client";
import { answeredOnce, claimIdempotencyKey, type IdempotentRequest, recordAnswer } from "@/lib/idempotency/keys";
import { conflict, fieldErrorsOfRefusal, forbidden, invalidFields, notFound, Refusal } from "@/lib/refusal";
import {
  type IntegrationActor,
  type IntegrationOwner,
  isIntegrationActor,
  type LifecycleActor,
  type ResolvedOwner,
  requireIntegrationAccess,
} from "./access";
import { type LifecycleKind, lifecycleActions, type PlainLifecycleKind } from "./catalog";
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
import { integrationRequest } from "./idempotency";
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

/** How a function that mints a token keeps its answer (lib/integrations/idempotency.ts). */
export interface IssueOptions {
  /** Sent again with the same request: the first answer, token included, and nothing done twice. */
  idempotencyKey?: string;
  /**
   * The token goes to a screen, which says when it showed it (`confirmTokenShown`, by the key):
   * until then its row may read `Token never shown`. Otherwise it counts as shown with the answer.
   */
  confirmShown?: boolean;
}

/** When the new token counts as shown: with the answer, or once a screen says so. */
function shownAtOf(options: IssueOptions, now: Date): Date | null {
  return options.confirmShown && options.idempotencyKey ? null : now;
}

/** The key's claim of `request` (operation, target, body) by `actor`, or none without a key. */
function claimOf(actor: LifecycleActor, options: IssueOptions, request: unknown): IdempotentRequest | undefined {
  return options.idempotencyKey ? integrationRequest(actor, options.idempotencyKey, request) : undefined;
}

export const tokenAlreadyShownMessage =
  "This was already done and its token was shown then; it is not kept. If the token was not saved, rotate it.";

/** A stored answer, as the IssuedToken it was; refused once a screen showed its token (then forgotten). */
function reissued(stored: unknown): IssuedToken {
  const answer = stored as { integration: PrivateIntegrationView; token: string | null };
  if (answer.token === null) throw conflict(tokenAlreadyShownMessage);
  return { integration: answer.integration, token: answer.token };
}

/** The shape of every row of the table but Create and Edit. */
type Step<T> = (actor: LifecycleActor, owner: IntegrationOwner, integrationId: string, now?: Date) => Promise<T>;

/** A new token's row in the `current` slot: its keyed hash and hint, never the token. */
function currentSlot(minted: { tokenHash: string; hint: string }, now: Date, shownAt: Date | null = now) {
  return { slot: "current" as const, tokenHash: minted.tokenHash, hint: minted.hint, createdAt: now, shownAt };
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
 * backstop: at most one current and one previous token. With `answer` (a rotation sent with an
 * idempotency key), the key is claimed first and the answer written last, in the same transaction.
 */
async function changeIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date,
  plan: (resolved: ResolvedOwner) => Change,
  answer?: { request: IdempotentRequest; token: string },
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const change = plan(resolved);
  let changed: { row: IntegrationRow; view?: PrivateIntegrationView };
  try {
    // Every lifecycle action changes what a token may do: see lib/db/read-cache.ts.
    changed = await changeCachedState(() =>
      db().$transaction(async (tx) => {
        if (answer) await claimIdempotencyKey(tx, answer.request, now);
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
        const row = after ?? before;
        if (!answer) return { row };
        const view = await viewOf(resolved, row, now, tx);
        await recordAnswer(tx, answer.request, { integration: view, token: answer.token });
        return { row, view };
      }),
    );
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict("Someone changed this integration's tokens at the same moment; reload the page and try again.");
    }
    throw error;
  }
  return changed.view ?? viewOf(resolved, changed.row, now);
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
 * shown once. With an idempotency key, the same request sent again answers the first answer.
 */
export async function createPrivateIntegration(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  input: PrivateIntegrationInput,
  now: Date = new Date(),
  options: IssueOptions = {},
): Promise<IssuedToken> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const request = claimOf(actor, options, { operation: "create", owner, input });
  const minted = mintToken();
  return answeredOnce(async () => {
    // Under changeCachedState like every change of what a token may do (lib/db/read-cache.ts).
    const { row, view } = await changeCachedState(() =>
      createInTransaction(actor, resolved, input, now, minted, options, request),
    );
    return { integration: view ?? (await viewOf(resolved, row, now)), token: minted.token };
  }, reissued);
}

/** Create's transaction: the key claimed first, the integration, its audit entry, the answer last. */
function createInTransaction(
  actor: LifecycleActor,
  resolved: ResolvedOwner,
  input: PrivateIntegrationInput,
  now: Date,
  minted: ReturnType<typeof mintToken>,
  options: IssueOptions,
  request: IdempotentRequest | undefined,
): Promise<{ row: IntegrationRow; view?: PrivateIntegrationView }> {
  return db().$transaction(async (tx) => {
    if (request) await claimIdempotencyKey(tx, request, now);
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
        tokens: { create: currentSlot(minted, now, shownAtOf(options, now)) },
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
    const row = await tx.privateIntegration.findUniqueOrThrow({
      where: { id: created.id },
      include: integrationInclude,
    });
    if (!request) return { row };
    const view = await viewOf(resolved, row, now, tx);
    await recordAnswer(tx, request, { integration: view, token: minted.token });
    return { row, view };
  });
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
  shownAt: Date | null,
): Promise<Prisma.InputJsonObject> {
  // Whatever slot a revoked token still held is freed (revocation already took them all out).
  await tx.privateIntegrationToken.updateMany({
    where: { integrationId: row.id, slot: { not: null } },
    data: { slot: null, revokedAt: now },
  });
  await tx.privateIntegrationToken.create({ data: { integrationId: row.id, ...currentSlot(minted, now, shownAt) } });
  await tx.privateIntegration.update({ where: { id: row.id }, data: { revokedAt: null, revokedReason: null } });
  return { name: row.name, tokenHint: minted.hint, restoredFromRevoked: true, revokedReason: row.revokedReason ?? "" };
}

/**
 * Both rotations: a new current token, shown once. `later` keeps the old one working for the
 * chosen overlap (1, 3, 7, 14 or 30 days) from `now` (slot `previous`); `now` revokes it at once.
 * During a rotation whose new token was never shown, `now` replaces that token (the old one keeps
 * its overlap): the way to a working token after a lost answer. With an idempotency key, the same
 * request sent again answers the first answer.
 */
function rotation(when: "later" | "now") {
  return async (
    actor: LifecycleActor,
    owner: IntegrationOwner,
    integrationId: string,
    now: Date = new Date(),
    overlapDays: RotationOverlapDays = DEFAULT_ROTATION_OVERLAP_DAYS,
    options: IssueOptions = {},
  ): Promise<IssuedToken> => {
    const kind = when === "later" ? "rotateLater" : "rotateNow";
    const request = claimOf(actor, options, {
      operation: `rotate-${when}`,
      owner,
      integrationId,
      ...(when === "later" ? { overlapDays } : {}),
    });
    const minted = mintToken();
    const shownAt = shownAtOf(options, now);
    const plan = (): Change => ({
      audit: lifecycleActions[kind].audit.action,
      acts: kind,
      async apply(tx, row) {
        // A new token of an expired integration would never work: extend it first (revoked or not).
        if (row.expiresAt && row.expiresAt.getTime() <= now.getTime())
          throw conflict(expiredRotationMessage, "expires");
        if (row.revokedAt) {
          if (when === "later") throw conflict(revokedRefusal);
          return restoreRevoked(tx, row, minted, now, shownAt);
        }
        if (livePreviousToken(row, now)) {
          const unshown = currentToken(row);
          if (when === "later" || !unshown || unshown.shownAt !== null) throw conflict(rotationInProgress);
          // The rotation's new token never reached anyone: it stops, a new one takes its place.
          await tx.privateIntegrationToken.update({ where: { id: unshown.id }, data: { slot: null, revokedAt: now } });
          await tx.privateIntegrationToken.create({
            data: { integrationId: row.id, ...currentSlot(minted, now, shownAt) },
          });
          return { name: row.name, tokenHint: minted.hint, oldTokenHint: unshown.hint, neverShown: true };
        }
        const current = requireCurrent(row);
        const expiresAt = when === "later" ? oldTokenExpiresAt(overlapDays, now) : null;
        // A previous token whose overlap has passed leaves its slot (it already stopped working).
        await tx.privateIntegrationToken.updateMany({
          where: { integrationId: row.id, slot: "previous" },
          data: { slot: null },
        });
        await tx.privateIntegrationToken.update({
          where: { id: current.id },
          data: expiresAt ? { slot: "previous", expiresAt, rotatedOutAt: now } : { slot: null, revokedAt: now },
        });
        await tx.privateIntegrationToken.create({
          data: { integrationId: row.id, ...currentSlot(minted, now, shownAt) },
        });
        const details = { name: row.name, tokenHint: minted.hint, oldTokenHint: current.hint };
        return expiresAt ? { ...details, overlapDays, oldTokenExpiresAt: expiresAt.toISOString() } : details;
      },
    });
    return answeredOnce(async () => {
      const answer = request && { request, token: minted.token };
      const integration = await changeIntegration(actor, owner, integrationId, now, plan, answer);
      return { integration, token: minted.token };
    }, reissued);
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
export const expireNow: Step<PrivateIntegrationView> = (actor, owner, id, now = new Date()) =>
  changeIntegration(actor, owner, id, now, () => ({
    audit: lifecycleActions.expireNow.audit.action,
    acts: "expireNow",
    async apply(tx, row) {
      const previous = previousTokenOfRotation(row, now);
      await tx.privateIntegrationToken.update({ where: { id: previous.id }, data: { slot: null, revokedAt: now } });
      return { name: row.name, oldTokenHint: previous.hint };
    },
  }));

/** `Cancel rotation`: the new token stops working at once; the old one stays, with no expiry. */
export const cancelRotation: Step<PrivateIntegrationView> = (actor, owner, id, now = new Date()) =>
  changeIntegration(actor, owner, id, now, () => ({
    audit: lifecycleActions.cancelRotation.audit.action,
    acts: "cancelRotation",
    async apply(tx, row) {
      const previous = previousTokenOfRotation(row, now);
      const current = requireCurrent(row);
      await tx.privateIntegrationToken.update({ where: { id: current.id }, data: { slot: null, revokedAt: now } });
      await tx.privateIntegrationToken.update({
        where: { id: previous.id },
        data: { slot: "current", expiresAt: null, rotatedOutAt: null },
      });
      return { name: row.name, cancelledTokenHint: current.hint, keptTokenHint: previous.hint };
    },
  }));

/** `Delete`: the integration and every token of it are gone at once. */
export const remove: Step<{ id: string; name: string }> = async (actor, owner, id, now = new Date()) => {
  const deleted = await changeIntegration(actor, owner, id, now, () => ({
    audit: lifecycleActions.remove.audit.action,
    acts: "remove",
    async apply(tx, row) {
      // Tokens go with it (ON DELETE CASCADE): no hash of a deleted integration is kept.
      await tx.privateIntegration.delete({ where: { id: row.id } });
      return { name: row.name, scopes: row.scopes };
    },
  }));
  return { id: deleted.id, name: deleted.name };
};

/**
 * The step of each lifecycle action of the catalogue (./catalog.ts): one per action, or this does
 * not compile. Those that reveal no token answer the integration's name at least, for the screen's
 * generic server action and the management API's generic route.
 */
export const lifecycleSteps = {
  rotateLater,
  rotateNow,
  expireNow,
  cancelRotation,
  remove,
} satisfies Record<LifecycleKind, Step<unknown>> & Record<PlainLifecycleKind, Step<{ id: string; name: string }>>;
