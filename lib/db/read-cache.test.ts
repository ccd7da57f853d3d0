// Over 250 lines on purpose: the read cache's one promise (never outlive a change) proven for each
// kind of change, here and from another connection, over shared fixtures.
import { afterAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { verifyBearerToken } from "@/lib/api/bearer";
import type { CreatedApp } from "@/lib/apps/registry";
import { databaseHandle, db } from "@/lib/db/client";
import { READ_CACHE_TTL_MS, readCacheStats } from "@/lib/db/read-cache";
import * as lifecycle from "@/lib/integrations/lifecycle";
import { flushLastUsedWrites } from "@/lib/integrations/verify";
import { revokeToken } from "@/lib/oauth/revoke";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { uninstallApp } from "@/lib/oauth/uninstall";
import { waitFor, writerElsewhere } from "@/lib/testing/elsewhere";
import { makeAgency, makeUser, subAccountOwner } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { clientForm, formRequest, installAndExchange, makeApp, refreshGrant } from "@/lib/testing/oauth";
import { onPostgres } from "@/lib/testing/postgres";
import type { VerifyResult } from "@/lib/tokens/principal";

/**
 * The read cache never outlives a revocation: the instance that makes a change refuses
 * the token at once, and a change made anywhere else (another instance, psql) is refused within
 * a second. Each case first verifies the token until the cache holds it, so a refusal afterwards
 * proves the cache was emptied, not bypassed.
 */

/** Verifies until the answer comes from the cache (the listener is up and the entry stored). */
async function untilCached(token: string): Promise<void> {
  // The first verification starts the listener; until it listens, nothing is cached.
  await waitFor(async () => (await verifyBearerToken(token)).ok && readCacheStats().listening);
  const first = await verifyBearerToken(token);
  expect(first.ok).toBe(true);
  const before = readCacheStats().size;
  expect(before).toBeGreaterThan(0);
  expect((await verifyBearerToken(token)).ok).toBe(true);
}

function refused(result: VerifyResult): boolean {
  return !result.ok;
}

interface World {
  owner: Actor;
  locationId: string;
  app: CreatedApp;
  access: { accessToken: string; refreshToken: string; installationId: string };
}

/** A sub-account, its owner, and an app its user installed there, with the install's tokens. */
async function installedSubAccount(): Promise<World> {
  const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const locationId = agency.locations[0]!.id;
  const user = await makeUser(agency.company.id, "account_user", { locationIds: [locationId] });
  const app = await makeApp(agency.company.id);
  const body = await installAndExchange(user, app, { level: "location", locationId });
  const installation = await db().installation.findFirstOrThrow({
    where: { appId: app.app.id, locationId },
    select: { id: true },
  });
  return {
    owner: agency.owner,
    locationId,
    app,
    access: { accessToken: body.access_token, refreshToken: body.refresh_token, installationId: installation.id },
  };
}

/** A new integration of the world's sub-account. */
async function subAccountIntegration(w: World, scopes = ["locations.readonly", "contacts.write"]) {
  const created = await makeIntegration(w, { locationId: w.locationId, name: "Cached", scopes });
  return { owner: subAccountOwner(w.locationId), id: created.id, token: created.token };
}

/** A case: a new integration's token, verified once so it is cached, then `change`d. */
function changedIntegration(
  change: (w: World, pi: Awaited<ReturnType<typeof subAccountIntegration>>) => Promise<unknown>,
) {
  return async (w: World) => {
    const pi = await subAccountIntegration(w);
    await untilCached(pi.token);
    await change(w, pi);
    return { token: pi.token };
  };
}

afterAll(async () => {
  await flushLastUsedWrites();
});

describe("the instance that makes a change refuses the token at once", () => {
  const cases: [string, (w: World) => Promise<{ token: string; check?: (r: VerifyResult) => boolean }>][] = [
    [
      "access token revoked (RFC 7009)",
      async (w) => {
        await untilCached(w.access.accessToken);
        await revokeToken(formRequest("/oauth/revoke", { token: w.access.accessToken, ...clientForm(w.app) }));
        return { token: w.access.accessToken };
      },
    ],
    [
      "refresh token revoked: its grant's access tokens go too",
      async (w) => {
        await untilCached(w.access.accessToken);
        await revokeToken(formRequest("/oauth/revoke", { token: w.access.refreshToken, ...clientForm(w.app) }));
        return { token: w.access.accessToken };
      },
    ],
    [
      "refresh token reused (after its reuse window): the family is revoked",
      async (w) => {
        await untilCached(w.access.accessToken);
        const refresh = refreshGrant(w.app, w.access.refreshToken);
        await tokenEndpoint(formRequest("/oauth/token", refresh));
        const afterWindow = new Date(Date.now() + 301_000);
        await tokenEndpoint(formRequest("/oauth/token", refresh), afterWindow).catch(() => undefined);
        return { token: w.access.accessToken };
      },
    ],
    [
      "app uninstalled",
      async (w) => {
        await untilCached(w.access.accessToken);
        await uninstallApp({ installationId: w.access.installationId, actor: w.owner });
        return { token: w.access.accessToken };
      },
    ],
    [
      "private integration rotated now: the old token",
      changedIntegration((w, pi) => lifecycle.rotateNow(w.owner, pi.owner, pi.id)),
    ],
    [
      "rotation expired now: the old token",
      async (w) => {
        const pi = await subAccountIntegration(w);
        await lifecycle.rotateLater(w.owner, pi.owner, pi.id);
        await untilCached(pi.token);
        await lifecycle.expireNow(w.owner, pi.owner, pi.id);
        return { token: pi.token };
      },
    ],
    [
      "rotation cancelled: the new token",
      async (w) => {
        const pi = await subAccountIntegration(w);
        const { token } = await lifecycle.rotateLater(w.owner, pi.owner, pi.id);
        await untilCached(token);
        await lifecycle.cancelRotation(w.owner, pi.owner, pi.id);
        return { token };
      },
    ],
    ["private integration deleted", changedIntegration((w, pi) => lifecycle.remove(w.owner, pi.owner, pi.id))],
    [
      "scope removed by an edit: the token keeps working without it",
      async (w) => {
        const pi = await subAccountIntegration(w);
        await untilCached(pi.token);
        await lifecycle.updatePrivateIntegration(w.owner, pi.owner, pi.id, {
          name: "Cached",
          description: "",
          scopes: ["locations.readonly"],
        });
        return {
          token: pi.token,
          check: (r) => r.ok && !r.principal.scopes.includes("contacts.write"),
        };
      },
    ],
  ];

  it.each(cases)("%s", async (_name, act) => {
    const w = await installedSubAccount();
    const { token, check = refused } = await act(w);
    expect(check(await verifyBearerToken(token))).toBe(true);
  });
});

/**
 * Another instance's change, made on a connection of its own in plain SQL, so this process learns
 * of it only through the database (NOTIFY from the triggers). On PGlite, which one process owns,
 * the "other writer" is a statement sent to PGlite directly, bypassing the lib functions.
 */
describe("a change made elsewhere is refused within a second", () => {
  const elsewhere = writerElsewhere();
  const latencies: number[] = [];

  afterAll(async () => {
    if (latencies.length) {
      const kind = onPostgres() ? "PostgreSQL" : "PGlite";
      console.info(
        `[propagation] ${kind}: max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} changes`,
      );
    }
  });

  async function propagation(token: string, sql: string, params: unknown[], check = refused): Promise<number> {
    await untilCached(token);
    await elsewhere(sql, params);
    const start = performance.now();
    await waitFor(async () => check(await verifyBearerToken(token)), 2_000);
    const ms = performance.now() - start;
    latencies.push(ms);
    return ms;
  }

  const cases: [string, (w: World) => Promise<number>][] = [
    [
      "access token revoked",
      async (w) => {
        const jti = await jtiOf(w.access.accessToken);
        return propagation(w.access.accessToken, `UPDATE "AccessToken" SET "revokedAt" = now() WHERE jti = $1`, [jti]);
      },
    ],
    [
      "grant revoked",
      async (w) => {
        const jti = await jtiOf(w.access.accessToken);
        return propagation(
          w.access.accessToken,
          `UPDATE "TokenGrant" SET "revokedAt" = now() WHERE id = (SELECT "grantId" FROM "AccessToken" WHERE jti = $1)`,
          [jti],
        );
      },
    ],
    [
      "app uninstalled",
      async (w) =>
        propagation(w.access.accessToken, `UPDATE "Installation" SET status = 'uninstalled' WHERE id = $1`, [
          w.access.installationId,
        ]),
    ],
    [
      "private-integration token rotated out",
      async (w) => {
        const pi = await subAccountIntegration(w);
        return propagation(
          pi.token,
          `UPDATE "PrivateIntegrationToken" SET slot = NULL, "revokedAt" = now() WHERE "integrationId" = $1`,
          [pi.id],
        );
      },
    ],
    [
      "private integration deleted",
      async (w) => {
        const pi = await subAccountIntegration(w);
        return propagation(pi.token, `DELETE FROM "PrivateIntegration" WHERE id = $1`, [pi.id]);
      },
    ],
    [
      "scope removed",
      async (w) => {
        const pi = await subAccountIntegration(w);
        return propagation(
          pi.token,
          `UPDATE "PrivateIntegration" SET scopes = ARRAY['locations.readonly'] WHERE id = $1`,
          [pi.id],
          (r) => r.ok && !r.principal.scopes.includes("contacts.write"),
        );
      },
    ],
    [
      "app scope removed from the installation (a removal-only version, applied by another instance)",
      async (w) =>
        propagation(
          w.access.accessToken,
          `UPDATE "Installation" SET scopes = array_remove(scopes, 'contacts.write') WHERE id = $1`,
          [w.access.installationId],
          (r) => r.ok && !r.principal.scopes.includes("contacts.write"),
        ),
    ],
  ];

  it.each(cases)("%s", async (_name, act) => {
    const ms = await act(await installedSubAccount());
    expect(ms).toBeLessThan(1_000);
  });

  it("a change that sends no notification is still refused within the cache's lifetime", async () => {
    // session_replication_role = replica skips the triggers: the backstop is the entry's TTL.
    const w = await installedSubAccount();
    const pi = await subAccountIntegration(w);
    await untilCached(pi.token);
    const start = performance.now();
    const sql = `UPDATE "PrivateIntegrationToken" SET slot = NULL, "revokedAt" = now() WHERE "integrationId" = $1`;
    const other = elsewhere.client();
    if (other) {
      await other.query("SET session_replication_role = replica");
      await other.query(sql, [pi.id]);
      await other.query("SET session_replication_role = DEFAULT");
    } else {
      const pglite = databaseHandle().pglite!;
      await pglite.exec("SET session_replication_role = replica");
      await pglite.query(sql, [pi.id]);
      await pglite.exec("SET session_replication_role = DEFAULT");
    }
    await waitFor(async () => !(await verifyBearerToken(pi.token)).ok, 2_000);
    expect(performance.now() - start).toBeLessThan(READ_CACHE_TTL_MS + 100);
  });

  it.runIf(onPostgres())("while the LISTEN connection is down, nothing is served from the cache", async () => {
    const w = await installedSubAccount();
    const pi = await subAccountIntegration(w);
    await untilCached(pi.token);
    const pid = readCacheStats().listenerPid;
    const other = elsewhere.client();
    expect(pid).toBeDefined();
    await other!.query("SELECT pg_terminate_backend($1)", [pid]);
    await waitFor(() => !readCacheStats().listening);
    // A change without a notification, as if it happened during the outage.
    await other!.query("SET session_replication_role = replica");
    await other!.query(
      `UPDATE "PrivateIntegrationToken" SET slot = NULL, "revokedAt" = now() WHERE "integrationId" = $1`,
      [pi.id],
    );
    await other!.query("SET session_replication_role = DEFAULT");
    expect((await verifyBearerToken(pi.token)).ok).toBe(false);
    // And it listens again on its own.
    await waitFor(() => readCacheStats().listening, 5_000);
  });
});

async function jtiOf(token: string): Promise<string> {
  const result = await verifyBearerToken(token);
  if (!result.ok) throw new Error("token does not verify");
  return result.principal.tokenId;
}
