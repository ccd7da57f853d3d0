/** The server's cumulative database time (BENCH_DB_TIMING=1). */
export async function serverDbTime(baseUrl: string): Promise<{ calls: number; totalMs: number }> {
  const res = await fetch(`${baseUrl}/api/bench/db-time`);
  if (!res.ok) throw new Error(`GET /api/bench/db-time answered ${res.status}`);
  return (await res.json()) as { calls: number; totalMs: number };
}

/**
 * Signs in as a person does (next-auth's credentials form) and answers the session cookie, for the
 * screen scenario. One sign-in per server: sessions are checked on every request, not cached.
 */
export async function signInCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const answer = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesOf(csrf).join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  });
  const session = cookiesOf(answer).find((c) => c?.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`Signing in for the screen scenario failed (${answer.status}).`);
  return session;
}
