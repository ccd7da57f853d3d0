import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import { auditSecurityEvent, type SecurityEventPerson } from "./security-events";

/**
 * Sessions a person can see and end (SPEC.md › Sign-in that guards every credential › Sessions).
 * Each sign-in gets its own session id (`sid`) in next-auth's session JWT and a `UserSession` row;
 * every request reads the row (no cache), so a session ended on one instance is refused on all of
 * them at once. The row also says when the person last proved who they are (`authenticatedAt`),
 * which `Confirm it's you` renews.
 *
 * A session lasts at most `sessionLifetimeMs` from sign-in, whatever re-issued cookies say; its row
 * is pruned after that.
 */
export const sessionLifetimeMs = 12 * 60 * 60_000;

/** Showing or changing a credential needs an authentication this recent. */
export const recentAuthenticationMs = 10 * 60_000;

/** `Last active` is written at most this often per session, so a busy page does not write on every request. */
const lastActiveGranularityMs = 60_000;

const pruneBatch = 100;

/** A session JWT, read for this rule's claims: `sid` and `signedInAt` (epoch milliseconds), set at sign-in. */
export type SessionClaims = Readonly<Record<string, unknown>>;

/** Where a sign-in came from, as the sessions list shows it. */
export interface SignInOrigin {
  userAgent: string;
  address: string;
}

/** The live session of a request. */
export interface LiveSession {
  id: string;
  userId: string;
  signedInAt: Date;
  authenticatedAt: Date;
}

export function newSessionId(): string {
  return randomBytes(16).toString("base64url");
}

function claimsOf(token: SessionClaims): { sid: string; signedInAt: number } | null {
  const { sid, signedInAt } = token;
  if (typeof sid !== "string" || !sid || sid.length > 100) return null;
  if (typeof signedInAt !== "number" || !Number.isFinite(signedInAt)) return null;
  return { sid, signedInAt };
}

/** Records a new sign-in's session; answers the claims its JWT carries. */
export async function startSession(
  user: { id: string; sessionVersion: number },
  origin: SignInOrigin,
  now = new Date(),
): Promise<{ sid: string; signedInAt: number }> {
  const sid = newSessionId();
  await db().userSession.create({
    data: {
      id: sid,
      userId: user.id,
      sessionVersion: user.sessionVersion,
      userAgent: origin.userAgent.slice(0, 400),
      address: origin.address.slice(0, 100),
      signedInAt: now,
      lastActiveAt: now,
      authenticatedAt: now,
      expiresAt: new Date(now.getTime() + sessionLifetimeMs),
    },
  });
  return { sid, signedInAt: now.getTime() };
}

/**
 * The session these claims name, if it may still act: it has a row (sessions from before rows
 * existed are refused), is within its lifetime and was not ended. Marks it active now and then.
 */
export async function liveSession(token: SessionClaims, now = new Date()): Promise<LiveSession | null> {
  const claims = claimsOf(token);
  if (!claims) return null;
  if (claims.signedInAt > now.getTime() || now.getTime() >= claims.signedInAt + sessionLifetimeMs) return null;
  const row = await db().userSession.findUnique({
    where: { id: claims.sid },
    select: { id: true, userId: true, signedInAt: true, authenticatedAt: true, lastActiveAt: true, endedAt: true },
  });
  if (!row || row.endedAt || row.signedInAt.getTime() !== claims.signedInAt) return null;
  if (token.sub !== undefined && token.sub !== row.userId) return null;
  if (now.getTime() - row.lastActiveAt.getTime() >= lastActiveGranularityMs) {
    await db().userSession.updateMany({
      where: { id: row.id, lastActiveAt: { lt: new Date(now.getTime() - lastActiveGranularityMs) } },
      data: { lastActiveAt: now },
    });
  }
  return { id: row.id, userId: row.userId, signedInAt: row.signedInAt, authenticatedAt: row.authenticatedAt };
}

/** Whether these claims name a session that may still act. */
export async function isSessionLive(token: SessionClaims, now = new Date()): Promise<boolean> {
  return (await liveSession(token, now)) !== null;
}

/** Sign-out: the session is refused from now on, everywhere. Signing out twice is harmless. */
export async function endSession(token: SessionClaims, now = new Date()): Promise<void> {
  const claims = claimsOf(token);
  if (!claims) return;
  await db().userSession.updateMany({ where: { id: claims.sid, endedAt: null }, data: { endedAt: now } });
  await pruneSessions(now);
}

/** How far ahead of this instance's clock another instance's may have written `authenticatedAt`. */
const clockSkewMs = 60_000;

/** Whether the session proved who its person is within `recentAuthenticationMs`. */
export function isRecentlyAuthenticated(session: Pick<LiveSession, "authenticatedAt">, now = new Date()): boolean {
  const age = now.getTime() - session.authenticatedAt.getTime();
  return age > -clockSkewMs && age < recentAuthenticationMs;
}

/** `Confirm it's you` succeeded: the session may show and change credentials for the next 10 minutes. */
export async function markAuthenticated(sessionId: string, now = new Date()): Promise<void> {
  await db().userSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { authenticatedAt: now } });
}

/** Deletes up to `batch` rows of sessions past their lifetime (refused by that alone). */
export async function pruneSessions(now = new Date(), batch = pruneBatch): Promise<number> {
  return db().$executeRaw`
    DELETE FROM "UserSession" WHERE "id" IN (
      SELECT "id" FROM "UserSession" WHERE "expiresAt" < ${now.toISOString()}::timestamp(3) LIMIT ${batch})`;
}

/** A session as `Where you're signed in` lists it. */
export interface SessionView {
  id: string;
  userAgent: string;
  address: string;
  signedInAt: Date;
  lastActiveAt: Date;
  current: boolean;
}

/** The person's live sessions, the current one first, then the most recently active. */
export async function listSessions(userId: string, currentSessionId: string, now = new Date()): Promise<SessionView[]> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { sessionVersion: true } });
  if (!user) return [];
  const rows = await db().userSession.findMany({
    where: {
      userId,
      endedAt: null,
      sessionVersion: user.sessionVersion,
      signedInAt: { gt: new Date(now.getTime() - sessionLifetimeMs) },
    },
    orderBy: [{ lastActiveAt: "desc" }, { id: "asc" }],
    take: 100,
    select: { id: true, userAgent: true, address: true, signedInAt: true, lastActiveAt: true },
  });
  const views = rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
  return [...views.filter((s) => s.current), ...views.filter((s) => !s.current)];
}

/**
 * `Sign out` on another session, or `Sign out everywhere else` (`sessionId` omitted): the person's
 * own sessions only, never the current one (that is `Sign out`). Audited; answers how many ended.
 */
export async function endOtherSessions(
  person: SecurityEventPerson,
  currentSessionId: string,
  sessionId?: string,
  now = new Date(),
): Promise<number> {
  if (sessionId === currentSessionId) return 0;
  return db().$transaction(async (tx) => {
    const { count } = await tx.userSession.updateMany({
      where: { userId: person.id, endedAt: null, id: sessionId ?? { not: currentSessionId } },
      data: { endedAt: now },
    });
    if (count > 0) await auditSecurityEvent(tx, person, { kind: "session_ended", sessions: count });
    return count;
  });
}
