import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { checkCredentials } from "@/lib/accounts/users";
import { clientAddress } from "@/lib/client-address";
import { derivedKey } from "@/lib/crypto/secrets";
import { env } from "@/lib/env";
import { endSession, isSessionLive, newSessionClaims, sessionLifetimeMs } from "./ended-sessions";
import { safeReturnPath } from "./same-origin";
import { throttledSignIn } from "./throttle";

/** Shown on the sign-in screen; the login form maps these codes to sentences. */
export const signInErrors = {
  invalid: "The e-mail address or password is not right. Check both and try again.",
  throttled: "Too many failed sign-ins. For your safety, wait a few minutes before trying again.",
} as const;

/** What getServerSession hands back with these options. */
export interface SessionWithUser {
  userId?: string;
  sessionVersion?: number;
}

/** next-auth's session cookie: `__Secure-` prefixed when the app is served over https. */
export function sessionCookie(): { name: string; secure: boolean } {
  const secure = (process.env.NEXTAUTH_URL ?? "").startsWith("https://");
  return { name: `${secure ? "__Secure-" : ""}next-auth.session-token`, secure };
}

let options: NextAuthOptions | undefined;

/** Built on first use: the secret comes from the environment, which is not there at build time. */
export function authOptions(): NextAuthOptions {
  options ??= {
    secret: derivedKey("nextauth-session").toString("base64url"),
    session: { strategy: "jwt", maxAge: sessionLifetimeMs / 1000 },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          const email = String(credentials?.email ?? "").slice(0, 254);
          const password = String(credentials?.password ?? "").slice(0, 200);
          const address = clientAddress(request?.headers, env().TRUSTED_PROXY_HOPS);
          const result = await throttledSignIn(email, address, () => checkCredentials(email, password));
          if (!result.ok) throw new Error(result.reason);
          const { actor } = result;
          return { id: actor.id, email: actor.email, name: actor.name, sessionVersion: actor.sessionVersion };
        },
      }),
    ],
    callbacks: {
      // The session holds only the user id, the user's session version at sign-in and this
      // session's own id and start; roles and permissions are read fresh on each request, a
      // changed version ends all of the person's sessions, signing out ends this one.
      async jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sessionVersion = (user as { sessionVersion?: number }).sessionVersion ?? 0;
          Object.assign(token, newSessionClaims());
        }
        return token;
      },
      // Runs on every getServerSession and /api/auth/session: a signed-out (or too old) session
      // comes back without a user, so no screen, action or route sees anyone.
      async session({ session, token }) {
        if (!(await isSessionLive(token))) return { expires: session.expires };
        const version = typeof token.sessionVersion === "number" ? token.sessionVersion : undefined;
        return { ...session, userId: token.sub, sessionVersion: version };
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
