import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { checkCredentials } from "@/lib/accounts/users";
import { clientAddress } from "@/lib/api/client-address";
import { derivedKey } from "@/lib/crypto/secrets";
import { env } from "@/lib/env";
import { throttledSignIn } from "./throttle";

/** Shown on the sign-in screen; the login form maps these codes to sentences. */
export const signInErrors = {
  invalid: "The e-mail address or password is not right. Check both and try again.",
  throttled: "Too many failed sign-ins. For your safety, wait a few minutes before trying again.",
} as const;

let options: NextAuthOptions | undefined;

/** Built on first use: the secret comes from the environment, which is not there at build time. */
export function authOptions(): NextAuthOptions {
  options ??= {
    secret: derivedKey("nextauth-session").toString("base64url"),
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
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
          return { id: actor.id, email: actor.email, name: actor.name };
        },
      }),
    ],
    callbacks: {
      // The session holds only the user id; roles and permissions are read fresh on each request.
      async jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      async session({ session, token }) {
        return { ...session, userId: token.sub };
      },
    },
  };
  return options;
}
