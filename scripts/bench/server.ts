/** The server's cumulative database time (BENCH_DB_TIMING=1). */
export async function serverDbTime(baseUrl: string): Promise<{ calls: number; totalMs: number }> {
  const res = await fetch(`${baseUrl}/api/bench/db-time`);
  if (!res.ok) throw new Error(`GET /api/bench/db-time answered ${res.status}`);
  return (await res.json()) as { calls: number; totalMs: number };
}
