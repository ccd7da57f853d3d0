import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { conflict, notFound } from "@/lib/errors";
import { type AuditAction, Prisma } from "@/lib/generated/prisma/client";
import { type IntegrationOwner, type ResolvedOwner, requireIntegrationAccess } from "./access";
import { type PrivateIntegrationInput, parseIntegrationInput } from "./schemas";
import { mintToken } from "./token";
import {
  currentToken,
  type IntegrationRow,
  livePreviousToken,
  type PrivateIntegrationView,
  ROTATION_OVERLAP_MS,
  toView,
} from "./views";

/**
 * The private-integration lifecycle of SPEC.md, one function per row of its table. Every function
 * checks the actor's access on the server (own agency, Labs, permission), takes the clock as `now`,
 * and writes its audit entry in the same transaction as the change. Tokens are returned in plain
 * text exactly once, by the functions that mint them; only their keyed hash is stored.
 */

/** What a function that mints a token returns: the only time the token exists outside the caller's hands. */
export interface IssuedToken {
  integration: PrivateIntegrationView;
  /** The new token in plain text. Show it once; it cannot be recovered. */
  token: string;
}

const tokenSelect = {
  id: true,
  slot: true,
  hint: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;
const liveSlots = { where: { slot: { not: null } }, select: tokenSelect } as const;

function ownerWhere(owner: ResolvedOwner) {
  return { companyId: owner.companyId, locationId: owner.locationId };
}

async function creatorsOf(companyId: string, rows: IntegrationRow[]) {
  const ids = [...new Set(rows.map((r) => r.createdByUserId))];
  const users = ids.length
    ? await db().user.findMany({ where: { id: { in: ids }, companyId }, select: { id: true, name: true } })
    : [];
  return new Map(users.map((u) => [u.id, u]));
}

async function viewOf(owner: ResolvedOwner, row: IntegrationRow, now: Date): Promise<PrivateIntegrationView> {
  return toView(row, now, await creatorsOf(owner.companyId, [row]));
}

const notFoundMessage =
  "This private integration does not exist here any more; reload the page to see the current list.";

/**
 * Runs `change` on the integration with its row locked (SELECT … FOR UPDATE), so concurrent
 * lifecycle actions on one integration happen one after the other and each sees the other's result.
 * The unique (integrationId, slot) index is the backstop: at most one current and one previous token.
 */
async function withLockedIntegration<T>(
  owner: ResolvedOwner,
  integrationId: string,
  change: (tx: Tx, row: IntegrationRow) => Promise<T>,
): Promise<T> {
  try {
    // Every lifecycle action changes what a token may do: see lib/db/read-cache.ts.
    return await changeCachedState(() =>
      db().$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "PrivateIntegration"
        WHERE id = ${integrationId} AND "companyId" = ${owner.companyId}
        FOR UPDATE`;
        if (locked.length === 0) throw notFound(notFoundMessage);
        const row = await tx.privateIntegration.findFirst({
          where: { id: integrationId, ...ownerWhere(owner) },
          include: { tokens: liveSlots },
        });
        if (!row) throw notFound(notFoundMessage);
        return change(tx, row);
      }),
    );
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict("Someone changed this integration's tokens at the same moment; reload the page and try again.");
    }
    throw error;
  }
}

async function audit(
  tx: Tx,
  actor: Actor,
  owner: ResolvedOwner,
  action: AuditAction,
  integrationId: string,
  details: Prisma.InputJsonObject,
) {
  await recordAudit(tx, {
    companyId: owner.companyId,
    locationId: owner.locationId,
    actorUserId: actor.id,
    action,
    targetId: integrationId,
    details,
  });
}

async function reload(tx: Tx, integrationId: string): Promise<IntegrationRow> {
  return tx.privateIntegration.findUniqueOrThrow({ where: { id: integrationId }, include: { tokens: liveSlots } });
}

/** The integrations of an agency (agency level only) or of one sub-account, newest first. */
export async function listPrivateIntegrations(
  actor: Actor,
  owner: IntegrationOwner,
  now: Date = new Date(),
): Promise<PrivateIntegrationView[]> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const rows = await db().privateIntegration.findMany({
    where: ownerWhere(resolved),
    include: { tokens: liveSlots },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const creators = await creatorsOf(resolved.companyId, rows);
  return rows.map((row) => toView(row, now, creators));
}

export async function getPrivateIntegration(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const row = await db().privateIntegration.findFirst({
    where: { id: integrationId, ...ownerWhere(resolved) },
    include: { tokens: liveSlots },
  });
  if (!row) throw notFound(notFoundMessage);
  return viewOf(resolved, row, now);
}

/** Creates an integration with the scopes valid at its level and its first token, shown once. */
export async function createPrivateIntegration(
  actor: Actor,
  owner: IntegrationOwner,
  input: PrivateIntegrationInput,
  now: Date = new Date(),
): Promise<IssuedToken> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const data = parseIntegrationInput(input, resolved.level);
  const minted = mintToken();
  const row = await db().$transaction(async (tx) => {
    const created = await tx.privateIntegration.create({
      data: {
        ...ownerWhere(resolved),
        name: data.name,
        description: data.description,
        scopes: data.scopes,
        createdByUserId: actor.id,
        createdAt: now,
        tokens: { create: { slot: "current", tokenHash: minted.tokenHash, hint: minted.hint, createdAt: now } },
      },
      include: { tokens: liveSlots },
    });
    await audit(tx, actor, resolved, "private_integration_created", created.id, {
      name: created.name,
      scopes: created.scopes,
      tokenHint: minted.hint,
    });
    return created;
  });
  return { integration: await viewOf(resolved, row, now), token: minted.token };
}

/** `Edit`: name, description and scopes. The token does not change; the new scopes apply at once. */
export async function updatePrivateIntegration(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  input: PrivateIntegrationInput,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const data = parseIntegrationInput(input, resolved.level);
  const row = await withLockedIntegration(resolved, integrationId, async (tx, before) => {
    const after = await tx.privateIntegration.update({
      where: { id: before.id },
      data: { name: data.name, description: data.description, scopes: data.scopes },
      include: { tokens: liveSlots },
    });
    const changes: Prisma.InputJsonObject = {
      name: after.name,
      ...(before.name !== after.name ? { renamedFrom: before.name } : {}),
      ...(before.description !== after.description ? { descriptionChanged: true } : {}),
      scopesAdded: after.scopes.filter((s) => !before.scopes.includes(s)),
      scopesRemoved: before.scopes.filter((s) => !after.scopes.includes(s)),
    };
    await audit(tx, actor, resolved, "private_integration_updated", before.id, changes);
    return after;
  });
  return viewOf(resolved, row, now);
}

function requireCurrent(row: IntegrationRow) {
  const current = currentToken(row);
  // Every integration is created with a current token and every action keeps one.
  if (!current) throw conflict("This integration has no token; delete it and create a new one.");
  return current;
}

const rotationInProgress =
  "A rotation is already in progress: use “Expire Now” to stop the old token or “Cancel rotation” to keep it, then rotate again.";

/**
 * `Rotate and expire this token later`: a new token, shown once; the old one keeps working for
 * exactly 7 days from `now`.
 */
export async function rotateLater(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<IssuedToken> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const minted = mintToken();
  const row = await withLockedIntegration(resolved, integrationId, async (tx, row) => {
    if (livePreviousToken(row, now)) throw conflict(rotationInProgress);
    const current = requireCurrent(row);
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    // A previous token whose 7 days have passed leaves its slot (it already stopped working).
    await tx.privateIntegrationToken.updateMany({
      where: { integrationId: row.id, slot: "previous" },
      data: { slot: null },
    });
    await tx.privateIntegrationToken.update({ where: { id: current.id }, data: { slot: "previous", expiresAt } });
    await tx.privateIntegrationToken.create({
      data: { integrationId: row.id, slot: "current", tokenHash: minted.tokenHash, hint: minted.hint, createdAt: now },
    });
    await audit(tx, actor, resolved, "private_integration_rotated_later", row.id, {
      name: row.name,
      tokenHint: minted.hint,
      oldTokenHint: current.hint,
      oldTokenExpiresAt: expiresAt.toISOString(),
    });
    return reload(tx, row.id);
  });
  return { integration: await viewOf(resolved, row, now), token: minted.token };
}

/** `Rotate and expire this token now`: a new token, shown once; the old one stops working at once. */
export async function rotateNow(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<IssuedToken> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const minted = mintToken();
  const row = await withLockedIntegration(resolved, integrationId, async (tx, row) => {
    if (livePreviousToken(row, now)) throw conflict(rotationInProgress);
    const current = requireCurrent(row);
    await tx.privateIntegrationToken.updateMany({
      where: { integrationId: row.id, slot: "previous" },
      data: { slot: null },
    });
    await tx.privateIntegrationToken.update({ where: { id: current.id }, data: { slot: null, revokedAt: now } });
    await tx.privateIntegrationToken.create({
      data: { integrationId: row.id, slot: "current", tokenHash: minted.tokenHash, hint: minted.hint, createdAt: now },
    });
    await audit(tx, actor, resolved, "private_integration_rotated_now", row.id, {
      name: row.name,
      tokenHint: minted.hint,
      oldTokenHint: current.hint,
    });
    return reload(tx, row.id);
  });
  return { integration: await viewOf(resolved, row, now), token: minted.token };
}

const noRotation = "There is no rotation in progress for this integration (the old token may already have expired).";

/** `Expire Now` during a rotation: the old token stops working at once; the new one stays. */
export async function expireOldTokenNow(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const row = await withLockedIntegration(resolved, integrationId, async (tx, row) => {
    const previous = livePreviousToken(row, now);
    if (!previous) throw conflict(noRotation);
    await tx.privateIntegrationToken.update({ where: { id: previous.id }, data: { slot: null, revokedAt: now } });
    await audit(tx, actor, resolved, "private_integration_old_token_expired", row.id, {
      name: row.name,
      oldTokenHint: previous.hint,
    });
    return reload(tx, row.id);
  });
  return viewOf(resolved, row, now);
}

/** `Cancel rotation`: the new token stops working at once; the old one stays, with no expiry. */
export async function cancelRotation(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date = new Date(),
): Promise<PrivateIntegrationView> {
  const resolved = await requireIntegrationAccess(actor, owner);
  const row = await withLockedIntegration(resolved, integrationId, async (tx, row) => {
    const previous = livePreviousToken(row, now);
    if (!previous) throw conflict(noRotation);
    const current = requireCurrent(row);
    await tx.privateIntegrationToken.update({ where: { id: current.id }, data: { slot: null, revokedAt: now } });
    await tx.privateIntegrationToken.update({ where: { id: previous.id }, data: { slot: "current", expiresAt: null } });
    await audit(tx, actor, resolved, "private_integration_rotation_cancelled", row.id, {
      name: row.name,
      cancelledTokenHint: current.hint,
      keptTokenHint: previous.hint,
    });
    return reload(tx, row.id);
  });
  return viewOf(resolved, row, now);
}

/** `Delete`: the integration and every token of it are gone at once. */
export async function deletePrivateIntegration(
  actor: Actor,
  owner: IntegrationOwner,
  integrationId: string,
  _now: Date = new Date(),
): Promise<{ id: string; name: string }> {
  const resolved = await requireIntegrationAccess(actor, owner);
  return withLockedIntegration(resolved, integrationId, async (tx, row) => {
    // Tokens go with it (ON DELETE CASCADE): no hash of a deleted integration is kept.
    await tx.privateIntegration.delete({ where: { id: row.id } });
    await audit(tx, actor, resolved, "private_integration_deleted", row.id, { name: row.name, scopes: row.scopes });
    return { id: row.id, name: row.name };
  });
}
