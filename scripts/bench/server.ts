/** Time summed by stage of a request (lib/stage-timing.ts): how many, and how long in all. */
export type StageSums = Record<string, { count: number; totalMs: number }>;

/** The server's cumulative database time (BENCH_DB_TIMING=1), and its stages' (BENCH_STAGE_TIMING=1; none when off). */
export async function serverDbTime(baseUrl: string): Promise<{ calls: number; totalMs: number; stages?: StageSums }> {
  const res = await fetch(`${baseUrl}/api/bench/db-time`);
  if (!res.ok) throw new Error(`GET /api/bench/db-time answered ${res.status}`);
  return (await res.json()) as { calls: number; totalMs: number; stages?: StageSums };
}

/** Several turns' stage sums added up. */
export function sumStages(turns: (StageSums | undefined)[]): StageSums {
  const sums: StageSums = {};
  for (const turn of turns) {
    for (const [stage, time] of Object.entries(turn ?? {})) {
      const sum = sums[stage] ?? { count: 0, totalMs: 0 };
      sums[stage] = { count: sum.count + time.count, totalMs: sum.totalMs + time.totalMs };
    }
  }
  return sums;
}

/** The stages' sums between two readings. */
export function stagesBetween(before: StageSums | undefined, after: StageSums | undefined): StageSums {
  const between: StageSums = {};
  for (const [stage, now] of Object.entries(after ?? {})) {
    const then = before?.[stage] ?? { count: 0, totalMs: 0 };
    between[stage] = { count: now.count - then.count, totalMs: now.totalMs - then.totalMs };
  }
  return between;
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
