import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { hashSecret, lastFour } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { answeredOnce, claimedOnce, personRequest } from "@/lib/idempotency/keys";
import { Refusal } from "@/lib/refusal";
import {
  CLIENT_SECRET_OVERLAPS,
  type ClientSecretOverlap,
  clientSecretOverlaps,
  DEFAULT_CLIENT_SECRET_OVERLAP,
  isClientSecretOverlap,
} from "./client-secret-overlap";
import { loadOwnApp, newClientSecret } from "./registry";

export interface RotatedClientSecret {
  /** The new secret, shown this once. */
  clientSecret: string;
  clientSecretHint: string;
  /** Until when the secret it replaced keeps working beside it. */
  previousWorksUntil: Date;
}

/**
 * `Generate new client secret` (SPEC.md › Client secret rotation): a new secret, shown once. The
 * current one becomes the previous one and keeps working until `now` + the overlap (24 hours unless
 * chosen), so the app's servers switch over without an outage; a previous secret still in its
 * overlap is dropped at once (there is only one previous). Sent again with the same idempotency
 * key, it answers the same secret and rotates nothing: a second rotation would drop the secret the
 * app's servers still use.
 */
export async function rotateClientSecret(
  appId: string,
  options: { overlap?: ClientSecretOverlap; idempotencyKey?: string } = {},
  actor?: Actor,
  now = new Date(),
): Promise<RotatedClientSecret> {
  const overlap = options.overlap ?? DEFAULT_CLIENT_SECRET_OVERLAP;
  if (!isClientSecretOverlap(overlap)) {
    throw new Refusal("invalid", `The overlap must be ${clientSecretOverlaps.join(", ")}.`, "overlap");
  }
  const request = personRequest(actor?.id, options.idempotencyKey, {
    operation: "app.rotateClientSecret",
    appId,
    overlap,
  });
  // Other instances: each grant checks the secret in its own statement, and the App trigger's NOTIFY
  // empties their read caches. This one empties its own at once.
  return answeredOnce(
    () =>
      changeCachedState(() =>
        db().$transaction((tx) =>
          claimedOnce(tx, request, now, () => rotateClientSecretInDatabase(tx, appId, overlap, actor, now)),
        ),
      ),
    (stored) => stored as RotatedClientSecret,
  );
}

/**
 * The rotation's transaction (tests run it on a second instance's connection). One UPDATE moves
 * the current secret to previous (SET reads the row as it was), so rotations racing each other
 * never lose to the other the secret each replaced.
 */
export async function rotateClientSecretInDatabase(
  tx: Tx,
  appId: string,
  overlap: ClientSecretOverlap,
  actor: Actor | undefined,
  now: Date,
): Promise<RotatedClientSecret> {
  const app = await loadOwnApp(tx, appId, actor);
  const clientSecret = newClientSecret();
  const clientSecretHint = lastFour(clientSecret);
  const previousWorksUntil = new Date(now.getTime() + CLIENT_SECRET_OVERLAPS[overlap]);
  await tx.$executeRaw`
    UPDATE "App" SET
      "previousClientSecretHash" = "clientSecretHash",
      "previousClientSecretHint" = "clientSecretHint",
      "previousClientSecretExpiresAt" = ${previousWorksUntil.toISOString()}::timestamp(3),
      "clientSecretHash" = ${hashSecret(clientSecret)},
      "clientSecretHint" = ${clientSecretHint},
      "updatedAt" = ${new Date().toISOString()}::timestamp(3)
    WHERE id = ${appId}`;
  await forgetUnusedSecrets(tx, appId);
  await recordAudit(tx, {
    companyId: app.companyId,
    actorUserId: actor?.id,
    action: "app_secret_rotated",
    targetId: appId,
    details: { overlap, previousWorksUntil: previousWorksUntil.toISOString(), clientSecretHint },
  });
  return { clientSecret, clientSecretHint, previousWorksUntil };
}

export interface RevokedPreviousSecret {
  /** False when there was no previous secret (nothing changed). */
  revoked: boolean;
  previousClientSecretHint: string | null;
}

/**
 * `Revoke previous secret`: the secret the last rotation replaced stops working at once, on every
 * instance (each grant checks the secret in its own statement; the other endpoints read the app
 * from the database). Nothing to revoke is not an error: the previous secret no longer works.
 */
export async function revokePreviousClientSecret(appId: string, actor?: Actor): Promise<RevokedPreviousSecret> {
  return changeCachedState(() => db().$transaction((tx) => revokePreviousClientSecretInDatabase(tx, appId, actor)));
}

/** The revocation's transaction (tests run it on a second instance's connection). */
export async function revokePreviousClientSecretInDatabase(
  tx: Tx,
  appId: string,
  actor: Actor | undefined,
): Promise<RevokedPreviousSecret> {
  const app = await loadOwnApp(tx, appId, actor);
  // NO KEY, as updateApp: an approval writing a row that references the app does not wait on it.
  const [before] = await tx.$queryRaw<{ hash: string | null; hint: string | null }[]>`
    SELECT "previousClientSecretHash" AS hash, "previousClientSecretHint" AS hint
    FROM "App" WHERE id = ${appId} FOR NO KEY UPDATE`;
  if (!before?.hash) return { revoked: false, previousClientSecretHint: null };
  await tx.app.update({
    where: { id: appId },
    data: { previousClientSecretHash: null, previousClientSecretHint: null, previousClientSecretExpiresAt: null },
  });
  await forgetUnusedSecrets(tx, appId);
  await recordAudit(tx, {
    companyId: app.companyId,
    actorUserId: actor?.id,
    action: "app_previous_secret_revoked",
    targetId: appId,
    details: { previousClientSecretHint: before.hint },
  });
  return { revoked: true, previousClientSecretHint: before.hint };
}

/** Drops the last-used rows of the app's secrets that no longer work (ClientSecretUse). */
async function forgetUnusedSecrets(tx: Tx, appId: string): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM "ClientSecretUse" u USING "App" a
    WHERE a.id = ${appId} AND u."appId" = a.id
      AND u."secretHash" <> a."clientSecretHash"
      AND u."secretHash" IS DISTINCT FROM a."previousClientSecretHash"`;
}

export interface ClientSecretStatus {
  current: { hint: string; lastUsedAt: Date | null };
  /** The secret the last rotation replaced, while it still works. */
  previous: { hint: string; worksUntil: Date; lastUsedAt: Date | null } | null;
}

/** The app's client secrets as its page lists them: hints, until when the previous one works, last use. */
export async function clientSecretStatus(appId: string, now = new Date()): Promise<ClientSecretStatus> {
  const app = await db().app.findUniqueOrThrow({
    where: { id: appId },
    select: {
      clientSecretHash: true,
      clientSecretHint: true,
      previousClientSecretHash: true,
      previousClientSecretHint: true,
      previousClientSecretExpiresAt: true,
    },
  });
  const uses = await db().clientSecretUse.findMany({
    where: { appId, secretHash: { in: [app.clientSecretHash, app.previousClientSecretHash ?? app.clientSecretHash] } },
    select: { secretHash: true, lastUsedAt: true },
  });
  const lastUsed = (hash: string) => uses.find((u) => u.secretHash === hash)?.lastUsedAt ?? null;
  const previousWorks =
    app.previousClientSecretHash !== null &&
    app.previousClientSecretExpiresAt !== null &&
    app.previousClientSecretExpiresAt.getTime() > now.getTime();
  return {
    current: { hint: app.clientSecretHint, lastUsedAt: lastUsed(app.clientSecretHash) },
    previous:
      previousWorks && app.previousClientSecretHash && app.previousClientSecretExpiresAt
        ? {
            hint: app.previousClientSecretHint ?? "",
            worksUntil: app.previousClientSecretExpiresAt,
            lastUsedAt: lastUsed(app.previousClientSecretHash),
          }
        : null,
  };
}
