// Over 250 lines on purpose: each guard rail through the real route handler, then the same guard
// rails changed elsewhere; they share one agency, its integrations and the request helper.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { databaseHandle, db } from "@/lib/db/client";
import { changeCachedState, readCacheStats } from "@/lib/db/read-cache";
import { env, resetEnvCache } from "@/lib/env";
import { createLocation } from "@/lib/provisioning/create-location";
import { type ApiRequest, apiClient, expectBearerError, getLocation } from "@/lib/testing/api-client";
import { waitFor, writerElsewhere } from "@/lib/testing/elsewhere";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { ALL_SUB_ACCOUNTS, type GuardRails, NO_GUARD_RAILS, readGuardRails, writeGuardRails } from "./guard-rails";
import { flushLastUsedWrites, verifyPrivateIntegrationToken } from "./verify";

/**
 * The guard rails through the real route handler (GET /locations/{id}, wrapped in tokenRoute, so
 * the same Bearer path as every API route), and the read cache emptied by a change of them made
 * elsewhere. The server (scripts/serve.mjs) sets `x-peer-address` from the socket and drops any copy
 * the client sent; here the request carries it as the server would have set it.
 */

let A: TestAgency;
let other: TestAgency;

beforeAll(async () => {
  A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  other = await makeAgency({ locations: 1, privateIntegrationsLab: true });
});

afterEach(() => {
  delete process.env.TRUSTED_PROXY_HOPS;
  resetEnvCache();
});

afterAll(async () => {
  await flushLastUsedWrites();
});

const api = apiClient(apiRoutes);

/** Where a request comes from when the test does not say: one peer address. */
const somewhere: ApiRequest = { peer: "192.0.2.10" };

/** An agency integration that can read sub-accounts, with `rails` written as Edit will write them. */
async function agencyIntegration(rails: Partial<GuardRails> = {}) {
  const created = await makeIntegration(A);
  const id = created.integration.id;
  await setRails(id, rails);
  return { id, token: created.token, tokenId: created.integration.token.id };
}

async function setRails(integrationId: string, rails: Partial<GuardRails>) {
  await changeCachedState(() =>
    db().$transaction((tx) => writeGuardRails(tx, integrationId, { ...NO_GUARD_RAILS, ...rails })),
  );
}

describe("Expires", () => {
  it("an expired integration is 401 invalid_token naming the date; before it, the token works", async () => {
    const past = new Date(Date.now() - 60_000);
    const pi = await agencyIntegration({ expiresAt: past });
    const refused = await getLocation(api, pi.token, A.locations[0]!.id, somewhere);
    expectBearerError(refused, 401, "invalid_token");
    expect(refused.body.error_description).toContain(`its tokens stopped working at ${past.toISOString()}`);
    expect(refused.body.error_description).toContain(`its Expires date was ${past.toISOString().slice(0, 10)}`);

    await setRails(pi.id, { expiresAt: new Date(Date.now() + 60_000) });
    expect((await getLocation(api, pi.token, A.locations[0]!.id, somewhere)).status).toBe(200);
  });
});

describe("Allowed IP addresses", () => {
  const allowed = ["203.0.113.0/24", "2001:db8::/32"];

  it("the peer inside a range passes, outside it is 403 forbidden naming the rule and the address", async () => {
    const pi = await agencyIntegration({ allowedIpAddresses: allowed });
    const id = A.locations[0]!.id;
    expect((await getLocation(api, pi.token, id, { peer: "203.0.113.9" })).status).toBe(200);
    expect((await getLocation(api, pi.token, id, { peer: "::ffff:203.0.113.9" })).status).toBe(200);
    expect((await getLocation(api, pi.token, id, { peer: "2001:db8:1::5" })).status).toBe(200);

    const refused = await getLocation(api, pi.token, id, { peer: "198.51.100.7" });
    expectBearerError(
      refused,
      403,
      "forbidden",
      /only from its Allowed IP addresses, and this request came from 198\.51\.100\.7\./,
    );
    // The allowlist itself is not revealed to a caller from elsewhere.
    expect(refused.body.error_description).not.toContain("203.0.113");
  });

  it("with TRUSTED_PROXY_HOPS=0 a forged X-Forwarded-For never passes", async () => {
    const pi = await agencyIntegration({ allowedIpAddresses: allowed });
    for (const forwarded of ["203.0.113.9", "203.0.113.9, 203.0.113.10", "198.51.100.7, 203.0.113.9"]) {
      const refused = await getLocation(api, pi.token, A.locations[0]!.id, {
        peer: "198.51.100.7",
        forwardedFor: forwarded,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error_description).toContain("came from 198.51.100.7.");
    }
  });

  it("with TRUSTED_PROXY_HOPS=1 the proxy's entry counts, and what the client wrote before it does not", async () => {
    process.env.TRUSTED_PROXY_HOPS = "1";
    resetEnvCache();
    expect(env().TRUSTED_PROXY_HOPS).toBe(1);
    const pi = await agencyIntegration({ allowedIpAddresses: allowed });
    const id = A.locations[0]!.id;
    // The proxy (the peer, 10.0.0.1) appended the client it saw.
    const proxied = (forwarded: string) =>
      getLocation(api, pi.token, id, { peer: "10.0.0.1", forwardedFor: forwarded });
    expect((await proxied("203.0.113.9")).status).toBe(200);
    const forged = await proxied("203.0.113.9, 198.51.100.7");
    expect(forged.status).toBe(403);
    expect(forged.body.error_description).toContain("came from 198.51.100.7.");
    // The proxy's own address is not the client's.
    expect((await getLocation(api, pi.token, id, { peer: "203.0.113.9" })).status).toBe(200);
    expect((await getLocation(api, pi.token, id, { peer: "10.0.0.1" })).status).toBe(403);
  });

  it("an unknown peer (no x-peer-address, as under next dev) is refused by any allowlist", async () => {
    const pi = await agencyIntegration({ allowedIpAddresses: ["0.0.0.0/0", "::/0"] });
    const refused = await getLocation(api, pi.token, A.locations[0]!.id, { forwardedFor: "203.0.113.9" });
    expect(refused.status).toBe(403);
    expect(refused.body.error_description).toContain("an address the server could not determine");
    // No allowlist: every caller, as before.
    const open = await agencyIntegration();
    expect((await getLocation(api, open.token, A.locations[0]!.id, {})).status).toBe(200);
  });

  it("Last used records when and from which address (refusals are not a use)", async () => {
    const pi = await agencyIntegration({ allowedIpAddresses: allowed });
    await getLocation(api, pi.token, A.locations[0]!.id, { peer: "198.51.100.7" });
    await flushLastUsedWrites();
    const unused = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id: pi.tokenId } });
    expect(unused).toMatchObject({ lastUsedAt: null, lastUsedAddress: null });
    const before = Date.now();
    await getLocation(api, pi.token, A.locations[0]!.id, { peer: "::ffff:203.0.113.44" });
    await flushLastUsedWrites();
    const used = await db().privateIntegrationToken.findUniqueOrThrow({ where: { id: pi.tokenId } });
    expect(used.lastUsedAddress).toBe("203.0.113.44");
    expect(used.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe("Sub-accounts", () => {
  it("chosen sub-accounts only: others of the agency are 403 naming the rule, also one created later", async () => {
    const [first, second] = [A.locations[0]!.id, A.locations[1]!.id];
    const pi = await agencyIntegration({ subAccounts: { all: false, locationIds: [first] } });
    expect((await getLocation(api, pi.token, first, somewhere)).status).toBe(200);

    const notChosen = await getLocation(api, pi.token, second, somewhere);
    expectBearerError(notChosen, 403, "forbidden", /may act only on its chosen Sub-accounts/);

    const later = await createLocation({ companyId: A.company.id, name: "Opened later" });
    const refused = await getLocation(api, pi.token, later.id, somewhere);
    expect(refused.status).toBe(403);
    expect(refused.body.error_description).toMatch(/chosen Sub-accounts/);

    // Another agency's sub-account gets the usual answer, the same as one that does not exist.
    const foreign = await getLocation(api, pi.token, other.locations[0]!.id, somewhere);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error_description).not.toMatch(/Sub-accounts/);
    expect((await getLocation(api, pi.token, "does-not-exist", somewhere)).body.error_description).toBe(
      foreign.body.error_description,
    );
  });

  it("All sub-accounts (the default) includes one created later", async () => {
    const pi = await agencyIntegration({ subAccounts: ALL_SUB_ACCOUNTS });
    const later = await createLocation({ companyId: A.company.id, name: "Opened later, all" });
    expect((await getLocation(api, pi.token, later.id, somewhere)).status).toBe(200);
  });

  it("a deleted chosen sub-account leaves the selection (FK cascade) and nothing else is allowed", async () => {
    const doomed = await createLocation({ companyId: A.company.id, name: "To be deleted" });
    const pi = await agencyIntegration({ subAccounts: { all: false, locationIds: [doomed.id] } });
    expect((await getLocation(api, pi.token, doomed.id, somewhere)).status).toBe(200);
    await changeCachedState(() => db().location.delete({ where: { id: doomed.id } }));
    expect(await readGuardRails(db(), pi.id)).toMatchObject({ subAccounts: { all: false, locationIds: [] } });
    expect((await getLocation(api, pi.token, A.locations[0]!.id, somewhere)).status).toBe(403);
  });
});

/**
 * Another instance (or psql) changes the guard rails: this instance's cache is emptied through
 * NOTIFY token_state. On PostgreSQL the change is made on a connection of its own; on PGlite by a
 * statement sent to PGlite directly, bypassing changeCachedState.
 */
describe("a guard-rail change made elsewhere empties the read cache", () => {
  const elsewhere = writerElsewhere();

  const context = { clientAddress: "203.0.113.9" };
  const works = async (token: string, locationId?: string) => {
    const result = await verifyPrivateIntegrationToken(token, new Date(), context);
    if (!result.ok) return false;
    const chosen = result.principal.allowedLocationIds;
    return !locationId || !chosen || chosen.includes(locationId);
  };

  /** Verifies until the answer comes from the cache (the listener is up and the entry stored). */
  async function cached(token: string): Promise<void> {
    await waitFor(async () => (await works(token)) && readCacheStats().listening);
    expect(await works(token)).toBe(true);
    expect(readCacheStats().size).toBeGreaterThan(0);
  }

  const cases: [string, (pi: { id: string }) => [string, unknown[]], string?][] = [
    [
      "Expires set in the past",
      (pi) => [`UPDATE "PrivateIntegration" SET "expiresAt" = now() - interval '1 minute' WHERE id = $1`, [pi.id]],
    ],
    [
      "Allowed IP addresses no longer include the caller",
      (pi) => [
        `UPDATE "PrivateIntegration" SET "allowedIpAddresses" = ARRAY['198.51.100.0/24'] WHERE id = $1`,
        [pi.id],
      ],
    ],
    [
      "Sub-accounts narrowed to none",
      (pi) => [`UPDATE "PrivateIntegration" SET "allSubAccounts" = false WHERE id = $1`, [pi.id]],
      "location",
    ],
  ];

  it.each(cases)("%s: refused within a second", async (_name, change, needsLocation) => {
    const pi = await agencyIntegration();
    const locationId = needsLocation ? A.locations[0]!.id : undefined;
    await cached(pi.token);
    const [sql, params] = change(pi);
    await elsewhere(sql, params);
    const start = performance.now();
    await waitFor(async () => !(await works(pi.token, locationId)), 2_000);
    expect(performance.now() - start).toBeLessThan(1_000);
  });

  it("a chosen sub-account removed elsewhere (the join table alone): refused within a second", async () => {
    const [first] = [A.locations[0]!.id];
    const pi = await agencyIntegration({ subAccounts: { all: false, locationIds: [first] } });
    await cached(pi.token);
    expect(await works(pi.token, first)).toBe(true);
    await elsewhere(`DELETE FROM "PrivateIntegrationLocation" WHERE "integrationId" = $1`, [pi.id]);
    const start = performance.now();
    await waitFor(async () => !(await works(pi.token, first)), 2_000);
    expect(performance.now() - start).toBeLessThan(1_000);
  });

  it("the triggers send NOTIFY token_state for the integration and its chosen sub-accounts, not for Last used", async () => {
    const payloads: string[] = [];
    console.info(`[guard-rails] NOTIFY proof on ${databaseHandle().kind}`);
    let stop: () => Promise<void>;
    if (elsewhere.client()) {
      const listener = new pg.Client({ connectionString: env().DATABASE_URL });
      await listener.connect();
      listener.on("notification", (message) => payloads.push(message.payload ?? ""));
      await listener.query("LISTEN token_state");
      stop = () => listener.end();
    } else {
      stop = await databaseHandle().pglite!.listen("token_state", (payload: string) => payloads.push(payload));
    }
    try {
      const pi = await agencyIntegration();
      const settle = async (expected: string[]) => {
        await waitFor(async () => expected.every((p) => payloads.includes(p)), 3_000);
      };
      payloads.length = 0;
      await elsewhere(`UPDATE "PrivateIntegration" SET "allowedIpAddresses" = ARRAY['203.0.113.9'] WHERE id = $1`, [
        pi.id,
      ]);
      await settle(["PrivateIntegration"]);
      payloads.length = 0;
      await elsewhere(`INSERT INTO "PrivateIntegrationLocation" ("integrationId", "locationId") VALUES ($1, $2)`, [
        pi.id,
        A.locations[1]!.id,
      ]);
      await settle(["PrivateIntegrationLocation"]);
      // Last used is written on every minute of use: it must not empty every instance's cache.
      payloads.length = 0;
      await elsewhere(
        `UPDATE "PrivateIntegrationToken" SET "lastUsedAt" = now(), "lastUsedAddress" = '203.0.113.9' WHERE id = $1`,
        [pi.tokenId],
      );
      await elsewhere(`UPDATE "PrivateIntegration" SET "expiresAt" = now() + interval '1 day' WHERE id = $1`, [pi.id]);
      await settle(["PrivateIntegration"]);
      expect(payloads).not.toContain("PrivateIntegrationToken");
    } finally {
      await stop();
    }
  });
});
