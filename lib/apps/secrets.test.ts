// Over 250 lines on purpose: the overlap of a rotated client secret at every endpoint, to the millisecond, with its property test, sharing one app.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import type { CreatedApp } from "@/lib/apps/registry";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { readCacheStats } from "@/lib/db/read-cache";
import { authenticateClient, authenticateClientBasic } from "@/lib/oauth/client-auth";
import { secretStillAcceptedSql, settleClientSecretUses } from "@/lib/oauth/client-secret";
import { sqlTime } from "@/lib/oauth/grants/issue";
import { introspectToken } from "@/lib/oauth/introspect";
import { revokeToken } from "@/lib/oauth/revoke";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { basicAuth } from "@/lib/testing/api-client";
import { later } from "@/lib/testing/clock";
import { waitFor } from "@/lib/testing/elsewhere";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { formRequest, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { CLIENT_SECRET_OVERLAPS, type ClientSecretOverlap, clientSecretOverlaps } from "./client-secret-overlap";
import { clientSecretStatus, revokePreviousClientSecret, rotateClientSecret } from "./secrets";

/**
 * SPEC.md › Client secret rotation: `Generate new client secret` keeps the secret it replaces
 * working for the overlap chosen (1 hour, 24 hours, 7 days), or until `Revoke previous secret`;
 * both are listed with when each was last used. Times move through the endpoints' `now`.
 */

const HOUR = 3_600_000;

let agency: TestAgency;
beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
});

/** Each endpoint a client secret authenticates at, with the app's client_id and `secret`, at `now`. */
function endpoints(created: CreatedApp) {
  const client_id = created.app.clientId;
  return {
    refresh: (secret: string, token: string, now: Date) =>
      tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "refresh_token",
          client_id,
          client_secret: secret,
          refresh_token: token,
        }),
        now,
      ) as Promise<{ access_token: string; refresh_token: string }>,
    revoke: (secret: string, token: string, now: Date) =>
      revokeToken(formRequest("/oauth/revoke", { client_id, client_secret: secret, token }), now),
    introspect: (secret: string, token: string, now: Date) =>
      introspectToken(formRequest("/oauth/introspect", { client_id, client_secret: secret, token }), now),
    basic: (secret: string, now: Date) =>
      authenticateClientBasic(
        new Request("http://localhost/webhooks/events", { headers: { authorization: basicAuth(client_id, secret) } }),
        now,
      ),
  };
}

const invalidClient = { code: "invalid_client", status: 401 };

async function installed(created: CreatedApp) {
  return installAndExchange(agency.owner, created, { level: "agency", locationIds: [agency.locations[0]!.id] });
}

describe("rotateClientSecret: the previous secret keeps working for the overlap", () => {
  it("works for refresh, revoke, introspect and HTTP Basic until its overlap ends, then is 401 invalid_client", async () => {
    const created = await makeApp(agency.company.id);
    const tokens = await installed(created);
    const old = created.clientSecret;
    const t0 = new Date();
    const rotated = await rotateClientSecret(created.app.id, { overlap: "1h" }, agency.owner, t0);
    expect(rotated.previousWorksUntil).toEqual(later(t0, HOUR));
    expect(rotated.clientSecretHint).toBe(rotated.clientSecret.slice(-4));
    const e = endpoints(created);

    // The last millisecond of the overlap: both secrets work everywhere.
    const inside = later(t0, HOUR - 1);
    const refreshed = await e.refresh(old, tokens.refresh_token, inside);
    expect(await e.introspect(old, refreshed.access_token, inside)).toMatchObject({ active: true });
    await expect(e.revoke(old, "not-a-token-of-ours", inside)).resolves.toBeUndefined();
    expect((await e.basic(old, inside)).id).toBe(created.app.id);
    expect(await e.introspect(rotated.clientSecret, refreshed.access_token, inside)).toMatchObject({ active: true });

    // From its end on, the old secret is refused everywhere; a refused refresh consumes nothing.
    const after = later(t0, HOUR);
    await expect(e.refresh(old, refreshed.refresh_token, after)).rejects.toMatchObject(invalidClient);
    await expect(e.introspect(old, refreshed.access_token, after)).rejects.toMatchObject(invalidClient);
    await expect(e.revoke(old, refreshed.access_token, after)).rejects.toMatchObject(invalidClient);
    await expect(e.basic(old, after)).rejects.toMatchObject(invalidClient);
    const again = await e.refresh(rotated.clientSecret, refreshed.refresh_token, after);
    expect(again.refresh_token).toEqual(expect.any(String));
    expect((await e.basic(rotated.clientSecret, later(t0, 30 * 24 * HOUR))).id).toBe(created.app.id);
  });

  it("24 hours unless chosen; 7 days when chosen; a second rotation drops the first previous secret at once", async () => {
    const created = await makeApp(agency.company.id);
    const e = endpoints(created);
    const t0 = new Date();
    const first = await rotateClientSecret(created.app.id, {}, agency.owner, t0);
    expect(first.previousWorksUntil).toEqual(later(t0, 24 * HOUR));
    const second = await rotateClientSecret(created.app.id, { overlap: "7d" }, agency.owner, t0);
    expect(second.previousWorksUntil).toEqual(later(t0, 7 * 24 * HOUR));
    // Only one previous secret: the original stopped although its 24 hours had not ended.
    await expect(e.basic(created.clientSecret, t0)).rejects.toMatchObject(invalidClient);
    expect((await e.basic(first.clientSecret, later(t0, 7 * 24 * HOUR - 1))).id).toBe(created.app.id);
    await expect(e.basic(first.clientSecret, later(t0, 7 * 24 * HOUR))).rejects.toMatchObject(invalidClient);
    expect((await e.basic(second.clientSecret, t0)).id).toBe(created.app.id);
    const audit = await db().auditLog.findMany({
      where: { targetId: created.app.id, action: "app_secret_rotated" },
      orderBy: { createdAt: "asc" },
    });
    expect(audit.map((a) => a.details)).toEqual([
      {
        overlap: "24h",
        previousWorksUntil: first.previousWorksUntil.toISOString(),
        clientSecretHint: first.clientSecretHint,
      },
      {
        overlap: "7d",
        previousWorksUntil: second.previousWorksUntil.toISOString(),
        clientSecretHint: second.clientSecretHint,
      },
    ]);
    expect(audit.every((a) => a.actorUserId === agency.owner.id)).toBe(true);
    await expect(rotateClientSecret(created.app.id, { overlap: "2d" as ClientSecretOverlap })).rejects.toMatchObject({
      kind: "invalid",
      field: "overlap",
    });
  });
});

describe("revokePreviousClientSecret", () => {
  it("stops the previous secret at once at every endpoint; the current one keeps working; audited once", async () => {
    const created = await makeApp(agency.company.id);
    const tokens = await installed(created);
    const e = endpoints(created);
    const old = created.clientSecret;
    const { clientSecret } = await rotateClientSecret(created.app.id, { overlap: "7d" }, agency.owner);
    const now = new Date();
    const refreshed = await e.refresh(old, tokens.refresh_token, now);

    expect(await revokePreviousClientSecret(created.app.id, agency.owner)).toEqual({
      revoked: true,
      previousClientSecretHint: old.slice(-4),
    });
    await expect(e.refresh(old, refreshed.refresh_token, now)).rejects.toMatchObject(invalidClient);
    await expect(e.introspect(old, refreshed.access_token, now)).rejects.toMatchObject(invalidClient);
    await expect(e.revoke(old, refreshed.access_token, now)).rejects.toMatchObject(invalidClient);
    await expect(e.basic(old, now)).rejects.toMatchObject(invalidClient);
    expect(await e.introspect(clientSecret, refreshed.access_token, now)).toMatchObject({ active: true });
    expect((await e.refresh(clientSecret, refreshed.refresh_token, now)).refresh_token).toEqual(expect.any(String));

    // Nothing left to revoke: no change, no second audit entry.
    expect(await revokePreviousClientSecret(created.app.id, agency.owner)).toEqual({
      revoked: false,
      previousClientSecretHint: null,
    });
    const audit = await db().auditLog.findMany({
      where: { targetId: created.app.id, action: "app_previous_secret_revoked" },
    });
    expect(audit.map((a) => [a.actorUserId, a.details])).toEqual([
      [agency.owner.id, { previousClientSecretHint: old.slice(-4) }],
    ]);
    expect((await clientSecretStatus(created.app.id)).previous).toBeNull();
  });
});

describe("when each client secret was last used", () => {
  it("is recorded per secret, at most once a minute, and listed beside it", async () => {
    const created = await makeApp(agency.company.id);
    const e = endpoints(created);
    const t0 = new Date();
    expect(await clientSecretStatus(created.app.id, t0)).toEqual({
      current: { hint: created.app.clientSecretHint, lastUsedAt: null },
      previous: null,
    });
    const { clientSecret } = await rotateClientSecret(created.app.id, { overlap: "1h" }, agency.owner, t0);
    await e.basic(created.clientSecret, t0);
    await e.basic(clientSecret, later(t0, 1000));
    await settleClientSecretUses();
    expect(await clientSecretStatus(created.app.id, t0)).toEqual({
      current: { hint: clientSecret.slice(-4), lastUsedAt: later(t0, 1000) },
      previous: { hint: created.clientSecret.slice(-4), worksUntil: later(t0, HOUR), lastUsedAt: t0 },
    });

    // 30 seconds later: not written again. A minute after the last write: written.
    await e.basic(created.clientSecret, later(t0, 30_000));
    await settleClientSecretUses();
    expect((await clientSecretStatus(created.app.id, t0)).previous?.lastUsedAt).toEqual(t0);
    await e.basic(created.clientSecret, later(t0, 60_000));
    await settleClientSecretUses();
    expect((await clientSecretStatus(created.app.id, t0)).previous?.lastUsedAt).toEqual(later(t0, 60_000));
    // Kept apart from App (whose updates empty every instance's read cache), by hash only.
    const rows = await db().clientSecretUse.findMany({ where: { appId: created.app.id } });
    expect(rows.map((r) => r.secretHash).sort()).toEqual(
      [hashSecret(clientSecret), hashSecret(created.clientSecret)].sort(),
    );

    // Past its overlap the previous secret is no longer listed; a rotation forgets the dropped one's row.
    expect((await clientSecretStatus(created.app.id, later(t0, HOUR))).previous).toBeNull();
    await rotateClientSecret(created.app.id, {}, agency.owner, t0);
    const after = await db().clientSecretUse.findMany({ where: { appId: created.app.id } });
    expect(after.map((r) => r.secretHash)).toEqual([hashSecret(clientSecret)]);
  });

  it("is recorded by the token endpoint, including when it answers from the read cache", async () => {
    const created = await makeApp(agency.company.id);
    const tokens = await installed(created);
    await settleClientSecretUses();
    const used = await db().clientSecretUse.findUniqueOrThrow({
      where: { secretHash: hashSecret(created.clientSecret) },
    });
    expect(used.appId).toBe(created.app.id);
    const nextUse = later(used.lastUsedAt, 61_000);
    await endpoints(created).refresh(created.clientSecret, tokens.refresh_token, nextUse);
    await settleClientSecretUses();
    expect((await clientSecretStatus(created.app.id, nextUse)).current.lastUsedAt).toEqual(nextUse);
  });
});

/** Whether `secret` authenticates the app at `now`: on the database, through the read cache, and in SQL. */
async function accepted(created: CreatedApp, secret: string, now: Date): Promise<boolean[]> {
  const form = { client_id: created.app.clientId, client_secret: secret };
  const attempt = async (cached: boolean) => {
    try {
      await authenticateClient(formRequest("/oauth/token", form), form, { cached, now });
      return true;
    } catch (error) {
      if (error instanceof HttpError && error.code === "invalid_client") return false;
      throw error;
    }
  };
  const [row] = await db().$queryRaw<{ ok: boolean }[]>`
    SELECT ${secretStillAcceptedSql("a", hashSecret(secret), sqlTime(now))} AS ok FROM "App" a WHERE a.id = ${created.app.id}`;
  return [await attempt(false), await attempt(true), row?.ok === true];
}

describe("which client secrets authenticate (property)", () => {
  it("for any rotations, revocations and clock moves: exactly the current one and an unexpired previous one", async () => {
    const warm = await makeApp(agency.company.id);
    await waitFor(async () => {
      await accepted(warm, warm.clientSecret, new Date());
      return readCacheStats().listening;
    });
    type Step = { rotate: ClientSecretOverlap } | { revoke: true } | { wait: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constantFrom(...clientSecretOverlaps).map((rotate) => ({ rotate })),
      fc.constant({ revoke: true as const }),
      fc
        .constantFrom(1, 1000, 59 * 60_000, HOUR - 1, HOUR, 23 * HOUR, 24 * HOUR, 6 * 24 * HOUR)
        .map((wait) => ({ wait })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const created = await makeApp(agency.company.id);
        const issued = [created.clientSecret];
        let current = created.clientSecret;
        let previous: { secret: string; until: number } | null = null;
        let now = Date.now();
        for (const s of steps) {
          if ("rotate" in s) {
            const { clientSecret } = await rotateClientSecret(
              created.app.id,
              { overlap: s.rotate },
              agency.owner,
              new Date(now),
            );
            previous = { secret: current, until: now + CLIENT_SECRET_OVERLAPS[s.rotate] };
            current = clientSecret;
            issued.push(clientSecret);
          } else if ("revoke" in s) {
            await revokePreviousClientSecret(created.app.id, agency.owner);
            previous = null;
          } else {
            now += s.wait;
          }
          for (const secret of issued) {
            const expected = secret === current || (secret === previous?.secret && now < previous.until);
            expect(await accepted(created, secret, new Date(now))).toEqual([expected, expected, expected]);
          }
          expect(await accepted(created, "not-a-secret", new Date(now))).toEqual([false, false, false]);
        }
      }),
      { numRuns: 25 },
    );
  });
});
