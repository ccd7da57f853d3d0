import { cookies } from "next/headers";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { derivedKey } from "@/lib/crypto/secrets";
import { passkeyStep } from "./passkey-sign-in";
import { safeReturnPath } from "./same-origin";
import { endSession, liveSession, sessionLifetimeMs, startSession } from "./sessions";
import { type CookieJar, noteBrowser, passwordStep, type SignedInUser, secondFactorStep } from "./sign-in";

export { signInErrors } from "./sign-in";

/** What getServerSession hands back with these options. */
export interface SessionWithUser {
  userId?: string;
  sessionVersion?: number;
  /** This sign-in's id (`UserSession.id`). */
  sessionId?: string;
  /** When this session last proved who its person is (ISO), for `Confirm it's you`. */
  authenticatedAt?: string;
}

/** next-auth's session cookie: `__Secure-` prefixed when the app is served over https. */
export function sessionCookie(): { name: string; secure: boolean } {
  const secure = (process.env.NEXTAUTH_URL ?? "").startsWith("https://");
  return { name: `${secure ? "__Secure-" : ""}next-auth.session-token`, secure };
}

/**
 * The request's cookies (next-auth's handler is a route handler and the passkey steps begin in server
 * actions: what is written reaches the answer).
 */
export async function requestCookies(): Promise<CookieJar> {
  const store = await cookies();
  const { secure } = sessionCookie();
  const written = new Map<string, string | null>();
  return {
    get: (name) => {
      const value = written.get(name);
      return value === null ? undefined : (value ?? store.get(name)?.value);
    },
    set: (name, value, { maxAgeSeconds }) => {
      written.set(name, value);
      store.set(name, value, { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge: maxAgeSeconds });
    },
    delete: (name) => {
      written.set(name, null);
      store.delete(name);
    },
  };
}

const headersOf = (request: { headers?: unknown } | undefined) =>
  (request?.headers ?? undefined) as Record<string, unknown> | undefined;

let options: NextAuthOptions | undefined;

/** Built on first use: the secret comes from the environment, which is not there at build time. */
export function authOptions(): NextAuthOptions {
  options ??= {
    secret: derivedKey("nextauth-session").toString("base64url"),
    session: { strategy: "jwt", maxAge: sessionLifetimeMs / 1000 },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      // Step one. A person with two-factor is refused with `second-factor` and continues below.
      CredentialsProvider({
        id: "credentials",
        name: "Email",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          return passwordStep(credentials ?? {}, headersOf(request), await requestCookies());
        },
      }),
      // Step two, in the browser that passed step one within 5 minutes.
      CredentialsProvider({
        id: "second-factor",
        name: "Authentication code",
        credentials: { code: { label: "Authentication code", type: "text" } },
        async authorize(credentials, request) {
          return secondFactorStep(credentials ?? {}, headersOf(request), await requestCookies());
        },
      }),
      // A passkey: on its own (discoverable, no e-mail or password), or as the second step above.
      CredentialsProvider({
        id: "passkey",
        name: "Passkey",
        credentials: { response: { label: "Passkey", type: "text" }, flow: { label: "Flow", type: "text" } },
        async authorize(credentials, request) {
          return passkeyStep(credentials ?? {}, headersOf(request), await requestCookies());
        },
      }),
    ],
    callbacks: {
      // The session holds only the user id, the user's session version at sign-in and this
      // session's own id and start; roles and permissions are read fresh on each request, a
      // changed version ends all of the person's sessions, ending its row ends this one.
      async jwt({ token, user }) {
        if (user) {
          const signedIn = user as unknown as SignedInUser;
          token.sub = signedIn.id;
          token.sessionVersion = signedIn.sessionVersion ?? 0;
          Object.assign(token, await startSession(signedIn, signedIn));
          await noteBrowser(signedIn);
        }
        return token;
      },
      // Runs on every getServerSession and /api/auth/session: an ended (or too old) session
      // comes back without a user, so no screen, action or route sees anyone.
      async session({ session, token }) {
        const live = await liveSession(token);
        if (!live) return { expires: session.expires };
        const version = typeof token.sessionVersion === "number" ? token.sessionVersion : undefined;
        return {
          ...session,
          userId: live.userId,
          sessionVersion: version,
          sessionId: live.id,
          authenticatedAt: live.authenticatedAt.toISOString(),
        };
      },
      // Every URL next-auth sends a browser to stays on our origin (same rule as the login page).
      async redirect({ url, baseUrl }) {
        return `${baseUrl}${safeReturnPath(url, baseUrl, "/")}`;
      },
    },
    events: {
      // next-auth clears the cookie; this makes every copy of it useless too, on every instance.
      async signOut({ token }) {
        if (token) await endSession(token);
      },
    },
  };
  return options;
}
