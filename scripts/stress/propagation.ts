// A change made through one instance is refused by the other within a second, read cache and all.
import { endOtherSessions } from "@/lib/auth/sessions";
import { db } from "@/lib/db/client";
import { createPrivateIntegration, remove } from "@/lib/integrations/lifecycle";
import { signInCookie } from "../bench/server";
import { check, results, sizes } from "./context";
import { type Instance, sleep } from "./instances";
import { getLocation, issueCode, postForm, type World } from "./world";

/** Polls `probe` until it returns true; the milliseconds it took, or null after `limitMs`. */
export async function timeUntil(probe: () => Promise<boolean>, limitMs = 5000): Promise<number | null> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return Math.round(performance.now() - started);
    if (performance.now() - started > limitMs) return null;
    await sleep(10);
  }
}

export async function propagation(one: Instance, two: Instance, world: World) {
  const locationId = world.locationIds[0]!;
  const integrationTimes: number[] = [];
  for (let i = 0; i < sizes.propagation; i++) {
    const owner = { level: "location", locationId } as const;
    const created = await createPrivateIntegration(world.owner, owner, {
      name: `Propagation ${i}`,
      scopes: ["locations.readonly"],
    });
    const before = await getLocation(two.url, locationId, created.token);
    if (before !== 200) {
      check(false, `propagation: a new integration works on instance 2 first (got ${before})`);
      return;
    }
    // Deleted through instance 1's code (lib, same PostgreSQL); the clock starts when the delete commits.
    await remove(world.owner, owner, created.integration.id);
    const ms = await timeUntil(async () => (await getLocation(two.url, locationId, created.token)) === 401);
    integrationTimes.push(ms ?? Number.POSITIVE_INFINITY);
  }
  const worst = Math.max(...integrationTimes);
  results["postgres.deletePropagationMs"] = { max: worst, samples: integrationTimes };
  check(
    worst <= 1000,
    `a private integration deleted through instance 1 is refused by instance 2 after at most ${worst} ms (${integrationTimes.length} runs; limit 1000 ms)`,
  );

  // An access token revoked at instance 1's /oauth/revoke is refused by instance 2.
  const { clientId, clientSecret } = world.client;
  const issued = await postForm(one.url, "/oauth/token", {
    grant_type: "authorization_code",
    client_id: clientId,
    client_secret: clientSecret,
    code: await issueCode(world),
    user_type: "Company",
  });
  const token = issued.body.access_token ?? "";
  const before = await getLocation(two.url, locationId, token);
  const revoked = await postForm(one.url, "/oauth/revoke", {
    client_id: clientId,
    client_secret: clientSecret,
    token,
  });
  const ms = await timeUntil(async () => (await getLocation(two.url, locationId, token)) === 401);
  results["postgres.revokePropagationMs"] = ms;
  check(
    before === 200 && revoked.status === 200 && ms !== null && ms <= 1000,
    `an access token revoked at instance 1 (answer ${revoked.status}) is refused by instance 2 after ${ms} ms (before: ${before})`,
  );
}

/** Whether a screen of `baseUrl` answers the session cookie as signed in (a signed-out one is sent to /login). */
async function signedInAt(baseUrl: string, cookie: string): Promise<boolean> {
  const answer = await fetch(`${baseUrl}/settings/account`, { headers: { cookie }, redirect: "manual" });
  await answer.body?.cancel();
  return answer.status === 200;
}

/** A session ended through instance 1 (`Sign out` on the sessions list) is signed out on instance 2 at once. */
export async function sessionPropagation(one: Instance, two: Instance, world: World) {
  const cookie = await signInCookie(one.url, world.owner.email, world.ownerPassword);
  const before = await signedInAt(two.url, cookie);
  const sessions = await db().userSession.findMany({
    where: { userId: world.owner.id, endedAt: null },
    orderBy: { signedInAt: "desc" },
    take: 1,
  });
  const ended = await endOtherSessions(world.owner, "another-session", sessions[0]?.id);
  const ms = await timeUntil(async () => !(await signedInAt(two.url, cookie)), 2000);
  results["postgres.sessionEndPropagationMs"] = ms;
  check(
    before && ended === 1 && ms !== null && ms <= 1000,
    `a session ended through instance 1 is signed out on instance 2 after ${ms} ms (signed in there before: ${before})`,
  );
}
