// App keys over two instances (SPEC.md › Apps that never lose an install): a client assertion's
// `jti` is accepted once across instances, and a removed key is refused by every instance at once.
import { db } from "@/lib/db/client";
import { addTestAppKey, assertionFields, clientAssertion, type TestAppKey } from "@/lib/testing/app-keys";
import { check, results, sizes } from "./context";
import type { Instance } from "./instances";
import { timeUntil } from "./propagation";
import { issueCode, postForm, type World } from "./world";

type Answer = Awaited<ReturnType<typeof postForm>>;

const outcome = (a: Answer) => (a.status === 200 ? "200" : `${a.status} ${a.body.error}`);

/**
 * `issuer` is the instances' APP_URL: the assertions' `aud` is its token endpoint. The keys are
 * written and removed by this process on the instances' PostgreSQL database, as the app's page on
 * any instance would.
 */
export async function appKeyScenarios(one: Instance, two: Instance, world: World, issuer: string) {
  const { clientId } = world.client;
  const app = await db().app.findUniqueOrThrow({ where: { clientId }, select: { id: true } });
  // The world's app installed at agency level on its first two sub-accounts.
  await issueCode(world);
  const aud = `${issuer}/oauth/token`;
  const assertion = (key: TestAppKey) => clientAssertion(clientId, key, { claims: { aud } });
  // Every answer of the scenario, for the check that none is a 5xx.
  const serverErrors: string[] = [];
  const installationToken = async (instance: Instance, signed: string, target: Record<string, string>) => {
    const answer = await postForm(instance.url, "/oauth/token", {
      grant_type: "client_credentials",
      ...assertionFields(signed),
      ...target,
    });
    if (answer.status >= 500) serverErrors.push(`${instance.name}: ${outcome(answer)}`);
    return answer;
  };

  // 1. The same assertion sent to both instances at once, `sizes.race` times: exactly one 200 each
  // time. A new key each round: its first use writes its `lastUsedAt` too.
  const company = { companyId: world.companyId };
  const tally: Record<string, number> = {};
  let exact = 0;
  for (let i = 0; i < sizes.race; i++) {
    const key = await addTestAppKey(app.id, i % 2 === 0 ? "ES256" : "RS256");
    const signed = await assertion(key);
    const answers = await Promise.all([
      installationToken(one, signed, company),
      installationToken(two, signed, company),
    ]);
    for (const a of answers) tally[outcome(a)] = (tally[outcome(a)] ?? 0) + 1;
    const winners = answers.filter((a) => a.status === 200);
    const replayed = answers.filter(
      (a) =>
        a.status === 401 && a.body.error === "invalid_client" && /already used/.test(a.body.error_description ?? ""),
    );
    if (winners.length === 1 && replayed.length === 1 && winners[0]!.body.userType === "Company") exact++;
    await db().appKey.delete({ where: { id: key.id } });
  }
  results["postgres.assertionReplayRace"] = tally;
  check(
    exact === sizes.race,
    `one client assertion sent to both instances at once, ${sizes.race}× → ${JSON.stringify(tally)} (each time exactly one 200, the other 401 invalid_client "already used")`,
  );

  // 2. A key added, then in use on both instances (each accepts an assertion of it), removed: the
  // first fresh assertion after the removal commits is refused by both at once.
  const location = { locationId: world.locationIds[0]! };
  const acceptedAfterMs: (number | null)[] = [];
  const removal: string[][] = [];
  let refusedAtOnce = 0;
  for (let i = 0; i < sizes.propagation; i++) {
    const removed = await addTestAppKey(app.id, i % 2 === 0 ? "ES256" : "RS256");
    const accepted = await Promise.all(
      [one, two].map((instance) =>
        timeUntil(async () => (await installationToken(instance, await assertion(removed), location)).status === 200),
      ),
    );
    acceptedAfterMs.push(...accepted);
    if (accepted.some((ms) => ms === null)) continue;
    await db().appKey.delete({ where: { id: removed.id } });
    const [first, second] = [await assertion(removed), await assertion(removed)];
    const after = await Promise.all([
      installationToken(one, first, location),
      installationToken(two, second, location),
    ]);
    removal.push(after.map(outcome));
    const refused = after.every(
      (a) =>
        a.status === 401 &&
        a.body.error === "invalid_client" &&
        /No key of this client/.test(a.body.error_description ?? ""),
    );
    if (refused) refusedAtOnce++;
  }
  const slowest = Math.max(...acceptedAfterMs.map((ms) => ms ?? Number.POSITIVE_INFINITY));
  results["postgres.addedKeyAcceptedMs"] = { max: slowest, samples: acceptedAfterMs };
  check(
    slowest <= 1000,
    `a key added on the database is accepted by both instances after at most ${slowest} ms (${acceptedAfterMs.length} samples; limit 1000 ms)`,
  );
  results["postgres.removedKey"] = removal;
  check(
    refusedAtOnce === sizes.propagation,
    `a key removed on the database (accepted by both instances just before) is refused by both at once, on the first request after the removal: ${refusedAtOnce}/${sizes.propagation} → ${JSON.stringify(removal[0])}`,
  );
  results["postgres.appKeyServerErrors"] = serverErrors;
  check(serverErrors.length === 0, `no 5xx among the app-key requests: ${JSON.stringify(serverErrors)}`);
}
