// One code, one refresh token presented many times at once, over one or two instances: exactly what
// SPEC.md allows.
import { db } from "@/lib/db/client";
import { check, results, sizes } from "./context";
import type { Instance } from "./instances";
import { getLocation, issueCode, postForm, type World } from "./world";

/** `count` requests at once, spread over the instances; the statuses and error codes seen. */
export async function race(instances: Instance[], count: number, form: Record<string, string>) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => postForm(instances[i % instances.length]!.url, "/oauth/token", form)),
  );
  const tally: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 200 ? "200" : `${a.status} ${a.body.error}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return { answers, tally, winners: answers.filter((a) => a.status === 200) };
}

export async function tokenRaces(label: string, instances: Instance[], world: World) {
  const { clientId, clientSecret } = world.client;
  // One authorization code, redeemed `sizes.race` times at once.
  const code = await issueCode(world);
  const codeRace = await race(instances, sizes.race, {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code,
    user_type: "Company",
  });
  results[`${label}.codeRace`] = codeRace.tally;
  check(
    codeRace.winners.length === 1 && codeRace.tally["400 invalid_grant"] === sizes.race - 1,
    `${label}: one code redeemed ${sizes.race}× at once on ${instances.length} instance(s) → ${JSON.stringify(codeRace.tally)} (exactly one 200, the rest invalid_grant)`,
  );
  const reused = codeRace.winners[0]?.body.access_token;
  if (reused) {
    const status = await getLocation(instances[0]!.url, world.locationIds[0]!, reused);
    check(status === 401, `${label}: the token issued from the replayed code is revoked (RFC 6749 §4.1.2): ${status}`);
  }

  // One refresh token, presented `sizes.race` times at once.
  const exchanged = await postForm(instances[0]!.url, "/oauth/token", {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code: await issueCode(world),
    user_type: "Company",
  });
  const works = await getLocation(
    instances[instances.length - 1]!.url,
    world.locationIds[0]!,
    exchanged.body.access_token ?? "",
  );
  check(
    exchanged.status === 200 && works === 200,
    `${label}: a fresh code exchanges (${exchanged.status}) and its token works on every instance (${works})`,
  );
  await refreshRaceInsideWindow(label, instances, world, exchanged.body.refresh_token ?? "");
}

/**
 * One refresh token presented `sizes.race` times at once over the instances, with the default
 * REFRESH_TOKEN_REUSE_SECONDS: every answer is 200 with a pair of its own, nothing is revoked, and
 * (PostgreSQL, which this process can read too) every pair belongs to the one family.
 */
export async function refreshRaceInsideWindow(
  label: string,
  instances: Instance[],
  world: World,
  refreshToken: string,
) {
  const { clientId, clientSecret } = world.client;
  const refreshRace = await race(instances, sizes.race, {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: refreshToken,
  });
  results[`${label}.refreshRace`] = refreshRace.tally;
  const pairs = refreshRace.winners.map((w) => w.body);
  check(
    refreshRace.winners.length === sizes.race && new Set(pairs.map((p) => p.refresh_token)).size === sizes.race,
    `${label}: one refresh token presented ${sizes.race}× at once on ${instances.length} instance(s), inside the reuse window → ${JSON.stringify(refreshRace.tally)} (every answer 200, each a pair of its own)`,
  );
  const working = await Promise.all(
    pairs.map((p, i) => getLocation(instances[i % instances.length]!.url, world.locationIds[0]!, p.access_token ?? "")),
  );
  check(
    working.every((status) => status === 200),
    `${label}: every access token of the race works, nothing was revoked (${working.filter((s) => s === 200).length}/${working.length})`,
  );
  if (label === "postgres") {
    const rows = await db().refreshToken.findMany({
      where: { id: { in: pairs.map((p) => p.refreshTokenId ?? "") } },
      select: { grantId: true, grant: { select: { revokedAt: true } } },
    });
    const families = new Set(rows.map((r) => r.grantId));
    check(
      rows.length === pairs.length && families.size === 1 && rows.every((r) => r.grant.revokedAt === null),
      `${label}: exactly one family survives the race: ${rows.length} refresh tokens in ${families.size} grant(s), revoked: ${rows.some((r) => r.grant.revokedAt !== null)}`,
    );
  }
  // Each new refresh token works (once): the app's processes each carry on with their own.
  const onward = await Promise.all(
    pairs.map((p, i) =>
      postForm(instances[(i + 1) % instances.length]!.url, "/oauth/token", {
        grant_type: "refresh_token",
        client_id: clientId,
        client_secret: clientSecret,
        refresh_token: p.refresh_token ?? "",
      }),
    ),
  );
  check(
    onward.every((a) => a.status === 200),
    `${label}: every refresh token the race issued refreshes again (${onward.filter((a) => a.status === 200).length}/${onward.length} × 200)`,
  );
}

/**
 * With REFRESH_TOKEN_REUSE_SECONDS=0 (strict single use): one refresh token presented
 * `sizes.race` times at once gives exactly one 200; the others are reuse, which revokes the
 * family, the winner's tokens included.
 */
export async function strictRefreshRace(label: string, instances: Instance[], world: World, refreshToken: string) {
  const { clientId, clientSecret } = world.client;
  const strict = await race(instances, sizes.race, {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: refreshToken,
  });
  results[`${label}.strictRefreshRace`] = strict.tally;
  check(
    strict.winners.length === 1 && strict.tally["400 invalid_grant"] === sizes.race - 1,
    `${label}, REFRESH_TOKEN_REUSE_SECONDS=0: one refresh token presented ${sizes.race}× at once on ${instances.length} instance(s) → ${JSON.stringify(strict.tally)} (exactly one 200, the rest invalid_grant)`,
  );
  const winner = strict.winners[0]?.body;
  const status = await getLocation(instances[0]!.url, world.locationIds[0]!, winner?.access_token ?? "");
  const again = await postForm(instances[instances.length - 1]!.url, "/oauth/token", {
    grant_type: "refresh_token",
    client_id: clientId,
    client_secret: clientSecret,
    refresh_token: winner?.refresh_token ?? "",
  });
  check(
    status === 401 && again.status === 400 && again.body.error === "invalid_grant",
    `${label}, REFRESH_TOKEN_REUSE_SECONDS=0: the reuse revoked the family: the winner's access token ${status}, its refresh token ${again.status} ${again.body.error ?? ""}`,
  );
}

/** The token races on one instance, with codes issued before it started (it owns the database now). */
export async function pgliteTokenRaces(instance: Instance, world: World, codes: { race: string; refresh: string }) {
  const { clientId, clientSecret } = world.client;
  const base = { client_id: clientId, client_secret: clientSecret };
  const codeRace = await race([instance], sizes.race, {
    ...base,
    grant_type: "authorization_code",
    code: codes.race,
    user_type: "Company",
  });
  results["pglite.codeRace"] = codeRace.tally;
  check(
    codeRace.winners.length === 1,
    `pglite: one code redeemed ${sizes.race}× at once → ${JSON.stringify(codeRace.tally)}`,
  );
  const exchanged = await postForm(instance.url, "/oauth/token", {
    ...base,
    grant_type: "authorization_code",
    code: codes.refresh,
    user_type: "Company",
  });
  await refreshRaceInsideWindow("pglite", [instance], world, exchanged.body.refresh_token ?? "");
}
