// Signing keys (access tokens, webhooks) rotated across two instances: once, and every token still
// verifies.
import { decodeProtectedHeader } from "jose";
import { operatorKey } from "@/lib/cli/operator";
import { db } from "@/lib/db/client";
import { check, results } from "./context";
import type { Instance } from "./instances";
import { timeUntil } from "./propagation";
import { getLocation, issueCode, postForm, type World } from "./world";

/**
 * Access-token signing-key rotation across two instances. The operator rotates through instance 2
 * (POST /api/operator, what the CLI sends to a server); instance 1 signs its next token with the
 * new key at once (it hears of the rotation through NOTIFY token_state). Then the clock makes the
 * new key due (its createdAt moved back in the shared database) and tokens are requested from both
 * instances at once: exactly one more rotation. Every token, from before and after, works on both
 * instances, and both publish every key whose tokens are alive.
 */
export async function keyRotation(one: Instance, two: Instance, world: World) {
  const locationId = world.locationIds[0]!;
  const { clientId, clientSecret } = world.client;
  const exchange = async (instance: Instance) => {
    const answer = await postForm(instance.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: clientId,
      client_secret: clientSecret,
      code: await issueCode(world),
      user_type: "Company",
    });
    return answer.body.access_token ?? "";
  };
  const kidOf = (token: string) => {
    try {
      return decodeProtectedHeader(token).kid;
    } catch {
      return undefined;
    }
  };
  const published = async (instance: Instance) => {
    const res = await fetch(`${instance.url}/.well-known/jwks.json`);
    const body = (await res.json()) as { keys: { kid: string }[] };
    return { cacheControl: res.headers.get("cache-control"), kids: body.keys.map((k) => k.kid) };
  };
  const keyCount = () => db().signingKey.count({ where: { use: "access_token" } });

  const first = await exchange(one);
  const rotated = await fetch(`${two.url}/api/operator`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}` },
    body: JSON.stringify({ command: "signing-key:rotate", flags: {} }),
  });
  const manual = (await rotated.json()) as { kid?: string; previousKid?: string };
  const second = await exchange(one);
  results["postgres.keyRotation.manual"] = { status: rotated.status, ...manual, firstKid: kidOf(first) };
  check(
    rotated.status === 200 && manual.previousKid === kidOf(first) && kidOf(second) === manual.kid,
    `signing-key:rotate through instance 2 → ${rotated.status} {kid, previousKid}; instance 1's next token is signed with the new kid at once`,
  );

  // The clock moves on: the key made by the rotation is due; both instances notice together.
  const keysBefore = await keyCount();
  await db().signingKey.update({
    where: { kid: manual.kid ?? "" },
    data: { createdAt: new Date(Date.now() - 91 * 86_400_000) },
  });
  const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => exchange(i % 2 ? two : one)));
  const last = [await exchange(one), await exchange(two)];
  const newKeys = (await keyCount()) - keysBefore;
  const active = await db().signingKey.findMany({ where: { use: "access_token", retiredAt: null } });
  const autoKid = active[0]?.kid;
  results["postgres.keyRotation.automatic"] = { newKeys, autoKid, lastKids: last.map(kidOf) };
  check(
    newKeys === 1 && active.length === 1 && last.every((t) => kidOf(t) === autoKid),
    `automatic rotation with 6 tokens requested at once from both instances: ${newKeys} new key (exactly 1), later tokens of both instances carry it`,
  );

  const tokens = [first, second, ...raced, ...last];
  const statuses = await Promise.all(
    [one, two].flatMap((instance) => tokens.map((token) => getLocation(instance.url, locationId, token))),
  );
  const jwks = [await published(one), await published(two)];
  const kids = [kidOf(first), manual.kid, autoKid];
  results["postgres.keyRotation.verified"] = { statuses, jwks };
  check(
    statuses.every((s) => s === 200) &&
      jwks.every((j) => j.cacheControl === "public, max-age=300" && kids.every((k) => k && j.kids.includes(k))),
    `${tokens.length} tokens signed with 3 keys (before, after signing-key:rotate, after the automatic rotation) work on both instances (${JSON.stringify([...new Set(statuses)])}); both JWKS publish the 3 keys`,
  );
}

/**
 * Webhook-key rotation across two instances (`webhook-key:rotate`, ours). Rotated through instance
 * 2, instance 1 publishes the new key beside the old one within milliseconds (NOTIFY token_state) and keeps the
 * PEM of x-ghl-signature on the old key (the 7-day overlap). Two rotations sent to both instances at
 * once come one after the other: each replaces a different key and one active key is left.
 */
export async function webhookKeyRotation(one: Instance, two: Instance) {
  const rotate = async (instance: Instance) => {
    const res = await fetch(`${instance.url}/api/operator`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}` },
      body: JSON.stringify({ command: "webhook-key:rotate", flags: {} }),
    });
    return { status: res.status, ...((await res.json()) as { kid?: string; previousKid?: string }) };
  };
  const published = async (instance: Instance) => {
    const jwks = (await (await fetch(`${instance.url}/.well-known/webhook-keys`)).json()) as {
      keys: { kid: string }[];
    };
    const pem = await (await fetch(`${instance.url}/.well-known/webhook-public-key.pem`)).text();
    return { kids: jwks.keys.map((k) => k.kid), pem };
  };

  const before = await published(one);
  const manual = await rotate(two);
  // Instance 1 hears of the rotation through NOTIFY, a few milliseconds after instance 2 answers
  // (as ./propagation.ts measures the other changes): polled, as there, within a second.
  let after = before;
  const expected = [manual.kid, ...before.kids].join();
  const ms = await timeUntil(async () => {
    after = await published(one);
    return after.kids.join() === expected;
  }, 1000);
  results["postgres.webhookKeyRotation.manual"] = { ...manual, before: before.kids, after: after.kids, ms };
  check(
    manual.status === 200 &&
      before.kids.length === 1 &&
      manual.previousKid === before.kids[0] &&
      ms !== null &&
      after.pem === before.pem,
    `webhook-key:rotate through instance 2 → ${manual.status} {kid, previousKid}; instance 1 publishes both keys after ${ms ?? "more than 1000"} ms (limit 1000 ms) and keeps x-ghl-signature's PEM on the old key`,
  );

  const raced = await Promise.all([rotate(one), rotate(two)]);
  const active = await db().signingKey.findMany({ where: { use: "webhook", retiredAt: null } });
  const chained =
    raced.every((r) => r.status === 200) &&
    new Set(raced.map((r) => r.previousKid)).size === 2 &&
    raced.some((r) => r.previousKid === manual.kid) &&
    raced.some((r) => raced.some((other) => other.kid === r.previousKid));
  results["postgres.webhookKeyRotation.raced"] = { raced, active: active.map((k) => k.kid) };
  check(
    chained && active.length === 1 && raced.some((r) => r.kid === active[0]?.kid),
    `two webhook-key:rotate at once on both instances: two rotations in a row, one active key`,
  );
}
