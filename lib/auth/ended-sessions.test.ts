import type { JWT } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { endSession, isSessionLive, newSessionClaims, pruneEndedSessions, sessionLifetimeMs } from "./ended-sessions";
import { authOptions } from "./options";

/** A sign-in as next-auth makes it: the jwt callback with the user authorize returned. */
async function signInToken(user: { id: string; sessionVersion: number }): Promise<JWT> {
  const jwt = authOptions().callbacks?.jwt;
  if (!jwt) throw new Error("no jwt callback");
  return jwt({ token: { sub: user.id }, user: { ...user, email: "x@example.test" }, account: null } as never);
}

/** What getServerSession (every screen and action) sees for this cookie's token. */
async function sessionOf(token: JWT): Promise<{ userId?: string }> {
  const session = authOptions().callbacks?.session;
  if (!session) throw new Error("no session callback");
  return (await session({ session: { expires: "2099-01-01T00:00:00.000Z" }, token } as never)) as { userId?: string };
}

const signOut = (token: JWT) => authOptions().events?.signOut?.({ token, session: undefined as never });

describe("signing out ends the session on the server", () => {
  it("refuses the old cookie's token after sign-out, and leaves the person's other sessions alone", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const laptop = await signInToken({ id: owner.id, sessionVersion: 0 });
    const phone = await signInToken({ id: owner.id, sessionVersion: 0 });
    expect(laptop.sid).toEqual(expect.any(String));
    expect(laptop.sid).not.toBe(phone.sid);
    expect(await sessionOf(laptop)).toMatchObject({ userId: owner.id });

    await signOut(laptop);

    // The same token (a kept copy of the cookie) no longer names anyone; read from the database on
    // each request, so every instance refuses it at once.
    expect((await sessionOf(laptop)).userId).toBeUndefined();
    expect(await sessionOf(phone)).toMatchObject({ userId: owner.id });
    // Signing out again (a replayed sign-out) is harmless.
    await signOut(laptop);
    expect((await sessionOf(laptop)).userId).toBeUndefined();
  });

  it("refuses a session without an id (from before ids existed) and one past its lifetime", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    expect((await sessionOf({ sub: owner.id, sessionVersion: 0 })).userId).toBeUndefined();
    const t0 = new Date("2099-01-01T00:00:00Z");
    const claims = newSessionClaims(t0);
    expect(await isSessionLive(claims, new Date(t0.getTime() + sessionLifetimeMs - 1))).toBe(true);
    expect(await isSessionLive(claims, new Date(t0.getTime() + sessionLifetimeMs))).toBe(false);
    expect(await isSessionLive(claims, new Date(t0.getTime() - 1))).toBe(false);
    expect(await isSessionLive({ sid: 42, signedInAt: t0.getTime() }, t0)).toBe(false);
  });

  it("prunes ended sessions once their lifetime is over (they are refused by it alone)", async () => {
    const t0 = new Date("2098-01-01T00:00:00Z");
    const old = newSessionClaims(t0);
    const recent = newSessionClaims(new Date(t0.getTime() + sessionLifetimeMs));
    await endSession(old, new Date(t0.getTime() + 1000));
    await endSession(recent, new Date(t0.getTime() + 1000));
    const kept = async () =>
      (await db().endedSession.findMany({ where: { sessionId: { in: [old.sid, recent.sid] } } })).map(
        (r) => r.sessionId,
      );
    expect(await kept()).toEqual(expect.arrayContaining([old.sid, recent.sid]));
    while ((await pruneEndedSessions(new Date(t0.getTime() + sessionLifetimeMs + 2000))) > 0) {}
    expect(await kept()).toEqual([recent.sid]);
  });
});
