import type { JWT } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { authOptions } from "./options";
import {
  endSession,
  isRecentlyAuthenticated,
  isSessionLive,
  liveSession,
  markAuthenticated,
  pruneSessions,
  recentAuthenticationMs,
  sessionLifetimeMs,
  startSession,
} from "./sessions";

const browser = { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0", address: "203.0.113.7" };

/** A sign-in as next-auth makes it: the jwt callback with the user authorize returned. */
async function signInToken(user: { id: string; sessionVersion: number }): Promise<JWT> {
  const jwt = authOptions().callbacks?.jwt;
  if (!jwt) throw new Error("no jwt callback");
  const signedIn = { ...user, email: "x@example.test", name: "X", ...browser, browserHash: `b-${user.id}` };
  return jwt({ token: { sub: user.id }, user: signedIn, account: null } as never);
}

/** What getServerSession (every screen and action) sees for this cookie's token. */
async function sessionOf(token: JWT): Promise<{ userId?: string; sessionId?: string }> {
  const session = authOptions().callbacks?.session;
  if (!session) throw new Error("no session callback");
  return (await session({ session: { expires: "2099-01-01T00:00:00.000Z" }, token } as never)) as { userId?: string };
}

const signOutEvent = (token: JWT) => authOptions().events?.signOut?.({ token, session: undefined as never });

describe("sessions", () => {
  it("records each sign-in with its browser and address, and ends only the one signed out", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const laptop = await signInToken({ id: owner.id, sessionVersion: 0 });
    const phone = await signInToken({ id: owner.id, sessionVersion: 0 });
    expect(laptop.sid).toEqual(expect.any(String));
    expect(laptop.sid).not.toBe(phone.sid);
    expect(await sessionOf(laptop)).toMatchObject({ userId: owner.id, sessionId: laptop.sid });
    const row = await db().userSession.findUniqueOrThrow({ where: { id: String(laptop.sid) } });
    expect(row).toMatchObject({
      userId: owner.id,
      userAgent: browser.userAgent,
      address: browser.address,
      endedAt: null,
    });

    await signOutEvent(laptop);

    // The same token (a kept copy of the cookie) no longer names anyone; read from the database on
    // each request, so every instance refuses it at once.
    expect((await sessionOf(laptop)).userId).toBeUndefined();
    expect(await sessionOf(phone)).toMatchObject({ userId: owner.id });
    await signOutEvent(laptop);
    expect((await sessionOf(laptop)).userId).toBeUndefined();
  });

  it("refuses a session without a row, past its lifetime, of another person, or with a forged start", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    expect((await sessionOf({ sub: owner.id, sessionVersion: 0 })).userId).toBeUndefined();
    expect((await sessionOf({ sub: owner.id, sid: "never-issued", signedInAt: Date.now() })).userId).toBeUndefined();
    const t0 = new Date("2099-01-01T00:00:00Z");
    const claims = await startSession({ id: owner.id, sessionVersion: 0 }, browser, t0);
    expect(await isSessionLive({ ...claims, sub: owner.id }, new Date(t0.getTime() + sessionLifetimeMs - 1))).toBe(
      true,
    );
    expect(await isSessionLive(claims, new Date(t0.getTime() + sessionLifetimeMs))).toBe(false);
    expect(await isSessionLive(claims, new Date(t0.getTime() - 1))).toBe(false);
    expect(await isSessionLive({ ...claims, sub: "someone-else" }, t0)).toBe(false);
    expect(await isSessionLive({ ...claims, signedInAt: claims.signedInAt - 1000 }, t0)).toBe(false);
    expect(await isSessionLive({ sid: 42, signedInAt: t0.getTime() }, t0)).toBe(false);
  });

  it("is recently authenticated for 10 minutes after sign-in or a confirmation", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const t0 = new Date("2099-02-01T00:00:00Z");
    const claims = await startSession({ id: owner.id, sessionVersion: 0 }, browser, t0);
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const first = await liveSession(claims, at(1000));
    if (!first) throw new Error("session not live");
    expect(isRecentlyAuthenticated(first, at(recentAuthenticationMs - 1))).toBe(true);
    expect(isRecentlyAuthenticated(first, at(recentAuthenticationMs))).toBe(false);
    // Another instance's clock a little ahead wrote it: still recent; far ahead is not believed.
    expect(isRecentlyAuthenticated(first, at(-30_000))).toBe(true);
    expect(isRecentlyAuthenticated(first, at(-120_000))).toBe(false);
    await markAuthenticated(claims.sid, at(recentAuthenticationMs + 5000));
    const confirmed = await liveSession(claims, at(recentAuthenticationMs + 6000));
    expect(confirmed && isRecentlyAuthenticated(confirmed, at(2 * recentAuthenticationMs))).toBe(true);
  });

  it("marks the session active at most once a minute", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const t0 = new Date("2099-03-01T00:00:00Z");
    const claims = await startSession({ id: owner.id, sessionVersion: 0 }, browser, t0);
    const lastActive = async () =>
      (await db().userSession.findUniqueOrThrow({ where: { id: claims.sid } })).lastActiveAt;
    await liveSession(claims, new Date(t0.getTime() + 30_000));
    expect(await lastActive()).toEqual(t0);
    await liveSession(claims, new Date(t0.getTime() + 61_000));
    expect(await lastActive()).toEqual(new Date(t0.getTime() + 61_000));
  });

  it("prunes sessions once their lifetime is over (they are refused by it alone)", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const t0 = new Date("2098-01-01T00:00:00Z");
    const old = await startSession({ id: owner.id, sessionVersion: 0 }, browser, t0);
    const recent = await startSession(
      { id: owner.id, sessionVersion: 0 },
      browser,
      new Date(t0.getTime() + sessionLifetimeMs),
    );
    await endSession(old, new Date(t0.getTime() + 1000));
    const kept = async () =>
      (await db().userSession.findMany({ where: { id: { in: [old.sid, recent.sid] } } })).map((r) => r.id);
    expect(await kept()).toEqual(expect.arrayContaining([old.sid, recent.sid]));
    while ((await pruneSessions(new Date(t0.getTime() + sessionLifetimeMs + 2000))) > 0) {}
    expect(await kept()).toEqual([recent.sid]);
  });
});
