import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";

/**
 * Signing out ends the session on the server (SPEC.md › The edges of the HTTP server). Each
 * sign-in gets its own session id (`sid`) in next-auth's session JWT, with the moment it began;
 * signing out records the id as ended, and every request checks it in the database (no cache), so
 * the old cookie is refused on every instance at once. Ending one session leaves the person's
 * other sessions alone (the per-user `sessionVersion` is for ending all of them).
 *
 * A session lasts at most `sessionLifetimeMs` from sign-in, whatever re-issued cookies say, so an
 * ended session's row is needed only until then; sign-outs prune the rows past it.
 */
export const sessionLifetimeMs = 12 * 60 * 60_000;

const pruneBatch = 100;

/**
 * A session JWT, read for this rule's claims: `sid` and `signedInAt` (epoch milliseconds of the
 * sign-in), set at sign-in by the jwt callback.
 */
export type SessionClaims = Readonly<Record<string, unknown>>;

/** The claims a new sign-in's session starts with. */
export function newSessionClaims(now = new Date()): { sid: string; signedInAt: number } {
  return { sid: randomBytes(16).toString("base64url"), signedInAt: now.getTime() };
}

function claimsOf(token: SessionClaims): { sid: string; signedInAt: number } | null {
  const { sid, signedInAt } = token;
  if (typeof sid !== "string" || !sid || sid.length > 100) return null;
  if (typeof signedInAt !== "number" || !Number.isFinite(signedInAt)) return null;
  return { sid, signedInAt };
}

/**
 * Whether the session these claims describe may still act: it has an id (sessions from before ids
 * existed are refused, so they cannot outlive a sign-out), is within its lifetime, and was not
 * signed out.
 */
export async function isSessionLive(token: SessionClaims, now = new Date()): Promise<boolean> {
  const claims = claimsOf(token);
  if (!claims) return false;
  if (claims.signedInAt > now.getTime() || now.getTime() >= claims.signedInAt + sessionLifetimeMs) return false;
  const ended = await db().endedSession.findUnique({ where: { sessionId: claims.sid }, select: { sessionId: true } });
  return ended === null;
}

/** Sign-out: the session is refused from now on, everywhere. Signing out twice is harmless. */
export async function endSession(token: SessionClaims, now = new Date()): Promise<void> {
  const claims = claimsOf(token);
  if (!claims) return;
  await db().endedSession.createMany({
    data: [{ sessionId: claims.sid, endedAt: now, expiresAt: new Date(claims.signedInAt + sessionLifetimeMs) }],
    skipDuplicates: true,
  });
  await pruneEndedSessions(now);
}

/** Deletes up to `batch` rows of sessions past their lifetime (refused by that alone). */
export async function pruneEndedSessions(now = new Date(), batch = pruneBatch): Promise<number> {
  return db().$executeRaw`
    DELETE FROM "EndedSession" WHERE "sessionId" IN (
      SELECT "sessionId" FROM "EndedSession" WHERE "expiresAt" < ${now.toISOString()}::timestamp(3) LIMIT ${batch})`;
}
