// Which scenario is compared with which (a peer, the limit (L), a direct twin of one through the
// pooler), and the order of the turns that follows from it: scripts/bench/report.ts prints the
// ratios, scripts/bench.ts runs the turns.

/** (b) again on servers of their own, measured against (b)'s peers: (b′) and the on/off pairs. */
const B_AGAIN = ["b′", "u", "u′", "m", "m′", "t", "t′"];

/** The peers' own scenarios, other than peer (L)'s. */
export const peerScenarioIds = { R: true, "R′": true, Rh: true, N: true };

/**
 * Which peer each of our scenarios is measured against: (R) the reference OAuth server ((R′) its
 * refreshes driven as chains), (Rh) the same server's installation token, (N) the bare framework.
 */
export const peerOf: Record<string, keyof typeof peerScenarioIds> = {
  a: "N",
  b: "N",
  c: "N",
  ...Object.fromEntries(B_AGAIN.map((id) => [id, "N" as const])),
  d: "N",
  e: "R",
  "e′": "R′",
  f: "R",
  g: "R",
  h: "Rh",
};
/** The first targets on PostgreSQL, as a ratio to the peer. */
export const peerTargets: Record<string, number> = { a: 0.95, b: 0.8, c: 0.8, d: 0.5, e: 1.0, f: 1.0, g: 1.0 };

/**
 * Peer (L)'s scenarios: the limit of each hot path, and which of ours each measures ((LeP) and
 * (Le′P): peer (L) through the same pooler as our (eP) and (e′P)).
 */
export const limitPeerIds: Record<string, string> = {
  Lb: "b",
  Lc: "c",
  Le: "e",
  "Le′": "e′",
  LeP: "eP",
  "Le′P": "e′P",
};
export const limitOf: Record<string, string> = {
  b: "Lb",
  ...Object.fromEntries(B_AGAIN.map((id) => [id, "Lb"])),
  c: "Lc",
  e: "Le",
  R: "Le",
  "e′": "Le′",
  "R′": "Le′",
  // Through the pooler: (L)'s private-integration read touches no database, so (Lb) is its limit there too.
  bP: "Lb",
  eP: "LeP",
  "e′P": "Le′P",
};

/** Our scenarios again through a transaction-mode pooler, each with the direct one it repeats. */
export const pooledOf: Record<string, string> = { bP: "b", eP: "e", "e′P": "e′" };

/**
 * Each peer's turn comes right after the first scenario of ours measured against it, and each
 * scenario through the pooler right after its direct twin (and its peers).
 */
const turnAfter: Record<string, string> = { ...limitPeerIds, ...pooledOf };
for (const [ours, peer] of Object.entries(peerOf)) turnAfter[peer] ??= ours;

/**
 * The order in which the scenarios take their turns: each peer right after the scenario of ours
 * it is first compared with ((N) after (a), (R) and (Le) after (e), (Rh) after (h), (Lb) after
 * (b), (Lc) after (c)), so a ratio's two sides are measured seconds apart rather than a minute. A shared machine's
 * speed moved within minutes (bench-results.md, the hot paths beside (L) on a noisy machine). A peer whose scenario
 * is not selected takes its turn last. The tables keep the scenarios' own order.
 */
export function turnOrder<S extends { id: string }>(scenarios: S[]): S[] {
  const followers = scenarios.filter((s) => s.id in turnAfter);
  const order: S[] = [];
  // A follower may have followers of its own: (eP) follows (e), and (LeP) follows (eP).
  const place = (one: S) => {
    order.push(one);
    for (const follower of followers)
      if (turnAfter[follower.id] === one.id && !order.includes(follower)) place(follower);
  };
  for (const one of scenarios) if (!(one.id in turnAfter)) place(one);
  return [...order, ...followers.filter((follower) => !order.includes(follower))];
}
