import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import type { Actor } from "@/lib/accounts/permissions";
import { loadActor } from "@/lib/accounts/users";
import { authOptions } from "./options";

/**
 * The signed-in person, read fresh from the database, or null. Once per request: the layout and
 * the page both ask, and React's cache makes that one session decode and one query.
 */
export const getActor = cache(async (): Promise<Actor | null> => {
  // Reading the cookies first makes every page that asks for the session render per request, so
  // `next build` never tries to prerender one (and never needs the server secret).
  await cookies();
  const session = (await getServerSession(authOptions())) as { userId?: string } | null;
  if (!session?.userId) return null;
  return loadActor(session.userId);
});

/** In a page or layout: the signed-in person, or a redirect to sign in and back. */
export async function requireActor(): Promise<Actor> {
  const actor = await getActor();
  if (actor) return actor;
  const path = (await headers()).get("x-pathname") ?? "/";
  redirect(`/login?callbackUrl=${encodeURIComponent(path)}`);
}
