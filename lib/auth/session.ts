import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { decode, encode } from "next-auth/jwt";
import { cache } from "react";
import type { Actor } from "@/lib/accounts/permissions";
import { loadSignedIn } from "@/lib/accounts/users";
import { appUrl } from "@/lib/env";
import { authOptions, type SessionWithUser, sessionCookie } from "./options";
import { sameOriginPath } from "./same-origin";

/** The screen where a person whose password was reset must choose their own. */
export const accountPath = "/settings/account";

/**
 * The signed-in person, read fresh from the database, or null: also null once they were removed
 * or their credentials changed after this session began (its version no longer matches). Once
 * per request: the layout and the page both ask, and React's cache makes that one query.
 */
export interface SignedIn {
  actor: Actor;
  mustChangePassword: boolean;
  /** The agency requires two-factor and this person has no second factor yet. */
  mustSetUpTwoFactor: boolean;
  /** This browser's session: its id, and when it last proved who its person is. */
  session: { id: string; authenticatedAt: Date };
}

export const getSignedIn = cache(async (): Promise<SignedIn | null> => {
  // Reading the cookies first makes every page that asks for the session render per request, so
  // `next build` never tries to prerender one (and never needs the server secret).
  await cookies();
  const session = (await getServerSession(authOptions())) as SessionWithUser | null;
  // No userId: signed out, or none at all (the session callback in options.ts checks the session id).
  if (!session?.userId || !session.sessionId || !session.authenticatedAt) return null;
  // Sessions from before versions existed carry none: they hold until the first change.
  const loaded = await loadSignedIn(session.userId, session.sessionVersion ?? 0);
  if (!loaded) return null;
  return { ...loaded, session: { id: session.sessionId, authenticatedAt: new Date(session.authenticatedAt) } };
});

export const getActor = cache(async (): Promise<Actor | null> => (await getSignedIn())?.actor ?? null);

/**
 * In a page or layout: the signed-in person, or a redirect to sign in and back. A person who
 * must change a reset password, or set up the two-factor authentication their agency requires, is
 * sent to the account screen from every other page. The
 * (admin) layout passes `passwordChangeRedirect: false`: a redirect thrown by a layout that the
 * target page shares makes the client router refetch that page forever, so pages redirect.
 */
export async function requireActor(options: { passwordChangeRedirect?: boolean } = {}): Promise<Actor> {
  const signedIn = await getSignedIn();
  const asked = (await headers()).get("x-pathname") ?? "/";
  if (!signedIn) {
    const back = sameOriginPath(asked, appUrl());
    redirect(back ? `/login?callbackUrl=${encodeURIComponent(back)}` : "/login");
  }
  const here = asked.split("?")[0];
  const mustVisitAccount = signedIn.mustChangePassword || signedIn.mustSetUpTwoFactor;
  if (mustVisitAccount && options.passwordChangeRedirect !== false && here !== accountPath) {
    redirect(accountPath);
  }
  return signedIn.actor;
}

/**
 * Re-issues this browser's session cookie with a new version, after the person changed their own
 * password: their other sessions end, this one goes on. Only from a server action or route handler.
 */
export async function renewSession(sessionVersion: number): Promise<void> {
  const store = await cookies();
  const { name, secure } = sessionCookie();
  const options = authOptions();
  const secret = String(options.secret);
  const token = await decode({ token: store.get(name)?.value, secret });
  if (!token) return;
  const maxAge = options.session?.maxAge ?? 12 * 60 * 60;
  const value = await encode({ token: { ...token, sessionVersion }, secret, maxAge });
  store.set(name, value, { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge });
}
