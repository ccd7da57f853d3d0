// Over 250 lines on purpose: what the pruner keeps, 1 ms either side of each horizon, for every
// kind of row, plus its batches and replay checks; they share one agency, app and installation.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import type { CreatedApp } from "@/lib/apps/registry";
import { databaseHandle, db } from "@/lib/db/client";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { codeGrant, formRequest, install, makeApp, refreshGrant } from "@/lib/testing/oauth";
import { WEBHOOK_EVENT_RETENTION_DAYS } from "@/lib/webhooks/retention";
import { PRUNE_HORIZONS, pruneOnce, startPruner, stopPruner } from "./prune";
import { noneDeleted, type PruneCounts } from "./prune-steps";

/**
 * The pruner, with the clock as a parameter. Rows are written with timestamps 1 ms either side of
 * each horizon; every run is scoped to this file's agency (tests share a PostgreSQL database).
 */

const DAY = 24 * 3_600_000;

let agency: TestAgency;
let app: CreatedApp;
let installationId: string;
let installer: Awaited<ReturnType<typeof makeUser>>;
const now = new Date();
const ago = (offsetMs: number) => new Date(now.getTime() - offsetMs);

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
  installer = await makeUser(agency.company.id, "account_user", { locationIds: [agency.locations[0]!.id] });
  const approved = await install(installer, app.app.clientId, {
    level: "location",
    locationId: agency.locations[0]!.id,
  });
  const code = await db().authorizationCode.findFirstOrThrow({
    where: { appId: app.app.id },
    select: { installationId: true },
    orderBy: { createdAt: "desc" },
  });
  installationId = code.installationId;
  expect(approved.code).toBeTruthy();
});

const prune = (options: { batchSize?: number } = {}) =>
  pruneOnce({ now, pauseMs: 0, companyIds: [agency.company.id], ...options });

async function grant(data: { revokedAt?: Date; installationToken?: boolean } = {}) {
  return db().tokenGrant.create({
    data: {
      appId: app.app.id,
      installationId,
      userType: "Location",
      companyId: agency.company.id,
      locationId: agency.locations[0]!.id,
      userId: agency.owner.id,
      scopes: [],
      ...data,
    },
  });
}

const exists = {
  accessToken: async (jti: string) => (await db().accessToken.findUnique({ where: { jti } })) !== null,
  refreshToken: async (id: string) => (await db().refreshToken.findUnique({ where: { id } })) !== null,
  grant: async (id: string) => (await db().tokenGrant.findUnique({ where: { id } })) !== null,
  code: async (id: string) => (await db().authorizationCode.findUnique({ where: { id } })) !== null,
  integrationToken: async (id: string) => (await db().privateIntegrationToken.findUnique({ where: { id } })) !== null,
  webhookEvent: async (id: string) => (await db().webhookEvent.findUnique({ where: { id } })) !== null,
};

describe("what the pruner keeps and deletes, 1 ms either side of each horizon", () => {
  it.each([
    ["expired 5 min - 1 ms ago", PRUNE_HORIZONS.accessTokenPastExpiryMs - 1, true],
    ["expired 5 min ago exactly", PRUNE_HORIZONS.accessTokenPastExpiryMs, true],
    ["expired 5 min + 1 ms ago", PRUNE_HORIZONS.accessTokenPastExpiryMs + 1, false],
    ["not expired yet", -DAY, true],
  ])("access token %s", async (_, expiredAgoMs, kept) => {
    const g = await grant();
    const jti = randomUUID();
    await db().accessToken.create({ data: { jti, grantId: g.id, expiresAt: ago(expiredAgoMs) } });
    // A live refresh token keeps the grant itself out of the way.
    await db().refreshToken.create({ data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) } });
    await prune();
    expect(await exists.accessToken(jti)).toBe(kept);
    expect(await exists.grant(g.id)).toBe(true);
  });

  it.each([
    ["consumed, expired 1 day - 1 ms ago", true, PRUNE_HORIZONS.refreshTokenPastExpiryMs - 1, true],
    ["consumed, expired 1 day + 1 ms ago", true, PRUNE_HORIZONS.refreshTokenPastExpiryMs + 1, false],
    ["unused, expired 1 day - 1 ms ago", false, PRUNE_HORIZONS.refreshTokenPastExpiryMs - 1, true],
    ["unused, expired 1 day + 1 ms ago", false, PRUNE_HORIZONS.refreshTokenPastExpiryMs + 1, false],
    ["consumed 300 days ago, expires in 65 days", true, -65 * DAY, true],
  ])("refresh token %s (with a live sibling, its grant stays)", async (_, consumed, expiredAgoMs, kept) => {
    const g = await grant();
    const token = await db().refreshToken.create({
      data: {
        tokenHash: randomUUID(),
        grantId: g.id,
        expiresAt: ago(expiredAgoMs),
        consumedAt: consumed ? ago(300 * DAY) : null,
      },
    });
    const sibling = await db().refreshToken.create({
      data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) },
    });
    await prune();
    expect(await exists.refreshToken(token.id)).toBe(kept);
    expect(await exists.refreshToken(sibling.id)).toBe(true);
    expect(await exists.grant(g.id)).toBe(true);
  });

  it.each([
    ["expired 5 min - 1 ms ago", PRUNE_HORIZONS.accessTokenPastExpiryMs - 1, true],
    ["expired 5 min + 1 ms ago", PRUNE_HORIZONS.accessTokenPastExpiryMs + 1, false],
  ])("an installation token %s: its grant goes with it", async (_, expiredAgoMs, kept) => {
    const g = await grant({ installationToken: true });
    const jti = randomUUID();
    await db().accessToken.create({ data: { jti, grantId: g.id, expiresAt: ago(expiredAgoMs) } });
    await prune();
    expect(await exists.accessToken(jti)).toBe(kept);
    expect(await exists.grant(g.id)).toBe(kept);
  });

  it.each([
    ["expired 1 min - 1 ms ago", PRUNE_HORIZONS.clientAssertionPastExpiryMs - 1, true],
    ["expired 1 min + 1 ms ago", PRUNE_HORIZONS.clientAssertionPastExpiryMs + 1, false],
  ])("a client assertion's jti %s", async (_, expiredAgoMs, kept) => {
    const jti = randomUUID();
    await db().clientAssertion.create({ data: { appId: app.app.id, jti, expiresAt: ago(expiredAgoMs) } });
    const summary = await prune();
    const found = await db().clientAssertion.findUnique({ where: { appId_jti: { appId: app.app.id, jti } } });
    expect(found !== null).toBe(kept);
    if (!kept) expect(summary.clientAssertions).toBeGreaterThanOrEqual(1);
  });

  it("a grant goes with its last refresh token (and its long-expired access tokens with it)", async () => {
    const g = await grant();
    const token = await db().refreshToken.create({
      data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(2 * DAY), consumedAt: ago(300 * DAY) },
    });
    const summary = await prune();
    expect(await exists.refreshToken(token.id)).toBe(false);
    expect(await exists.grant(g.id)).toBe(false);
    expect(summary.grants).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ["30 days - 1 ms ago", PRUNE_HORIZONS.revokedGrantMs - 1, true],
    ["30 days + 1 ms ago", PRUNE_HORIZONS.revokedGrantMs + 1, false],
  ])("a family revoked %s: kept or pruned with every token of it", async (_, revokedAgoMs, kept) => {
    const parent = await grant({ revokedAt: ago(revokedAgoMs) });
    const child = await db().tokenGrant.create({
      data: {
        appId: app.app.id,
        installationId,
        parentGrantId: parent.id,
        userType: "Location",
        companyId: agency.company.id,
        locationId: agency.locations[0]!.id,
        userId: agency.owner.id,
        scopes: [],
        revokedAt: ago(revokedAgoMs),
      },
    });
    const refresh = [];
    for (const g of [parent, child]) {
      refresh.push(
        await db().refreshToken.create({
          data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-300 * DAY), consumedAt: ago(40 * DAY) },
        }),
        await db().refreshToken.create({
          data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-300 * DAY) },
        }),
      );
    }
    const jti = randomUUID();
    await db().accessToken.create({ data: { jti, grantId: parent.id, expiresAt: ago(-DAY) } });
    await prune();
    expect(await exists.grant(parent.id)).toBe(kept);
    expect(await exists.grant(child.id)).toBe(kept);
    for (const r of refresh) expect(await exists.refreshToken(r.id)).toBe(kept);
    expect(await exists.accessToken(jti)).toBe(kept);
  });

  it.each([
    ["consumed, expired 7 days - 1 ms ago", true, PRUNE_HORIZONS.codePastExpiryMs - 1, true],
    ["consumed, expired 7 days + 1 ms ago", true, PRUNE_HORIZONS.codePastExpiryMs + 1, false],
    ["unused, expired 7 days + 1 ms ago", false, PRUNE_HORIZONS.codePastExpiryMs + 1, false],
    ["unused, not expired", false, -60_000, true],
  ])("authorization code %s; the grant it issued stays either way", async (_, consumed, expiredAgoMs, kept) => {
    const code = await db().authorizationCode.create({
      data: {
        codeHash: randomUUID(),
        appId: app.app.id,
        installationId,
        userId: agency.owner.id,
        redirectUri: "https://app.example.test/oauth/callback",
        scopes: [],
        expiresAt: ago(expiredAgoMs),
        consumedAt: consumed ? ago(expiredAgoMs + 60_000) : null,
      },
    });
    const issued = await db().tokenGrant.create({
      data: {
        appId: app.app.id,
        installationId,
        authorizationCodeId: code.id,
        userType: "Location",
        companyId: agency.company.id,
        locationId: agency.locations[0]!.id,
        userId: agency.owner.id,
        scopes: [],
        refreshTokens: { create: { tokenHash: randomUUID(), expiresAt: ago(-300 * DAY) } },
      },
    });
    await prune();
    expect(await exists.code(code.id)).toBe(kept);
    const after = await db().tokenGrant.findUniqueOrThrow({ where: { id: issued.id } });
    expect(after.authorizationCodeId).toBe(kept ? code.id : null);
    expect(after.revokedAt).toBeNull();
  });

  it.each([
    ["revoked 30 days - 1 ms ago", { slot: null, revokedAt: ago(PRUNE_HORIZONS.integrationTokenStoppedMs - 1) }, true],
    ["revoked 30 days + 1 ms ago", { slot: null, revokedAt: ago(PRUNE_HORIZONS.integrationTokenStoppedMs + 1) }, false],
    [
      "left its slot after its overlap, ended 30 days + 1 ms ago",
      { slot: null, expiresAt: ago(PRUNE_HORIZONS.integrationTokenStoppedMs + 1) },
      false,
    ],
    [
      "left its slot early (rotated now) with an overlap end still ahead",
      { slot: null, expiresAt: ago(-7 * DAY), createdAt: ago(400 * DAY) },
      true,
    ],
    [
      "previous, overlap ended 31 days ago, still in its slot",
      { slot: "previous" as const, expiresAt: ago(31 * DAY) },
      true,
    ],
    ["current, made 400 days ago", { slot: "current" as const, createdAt: ago(400 * DAY) }, true],
  ])("private-integration token %s", async (_, token, kept) => {
    const integration = await db().privateIntegration.create({
      data: { companyId: agency.company.id, name: `PI ${randomUUID()}`, scopes: [], createdByUserId: agency.owner.id },
    });
    const row = await db().privateIntegrationToken.create({
      data: { integrationId: integration.id, tokenHash: randomUUID(), hint: "pit-…abcd", ...token },
    });
    await prune();
    expect(await exists.integrationToken(row.id)).toBe(kept);
  });

  const retention = WEBHOOK_EVENT_RETENTION_DAYS * DAY;
  it.each([
    ["delivered", retention - 1, true],
    ["delivered", retention + 1, false],
    ["failed", retention - 1, true],
    ["failed", retention + 1, false],
    ["pending", retention + DAY, true],
  ] as const)(
    "webhook event %s, made %i ms ago (retention ± 1 ms), with its delivery log",
    async (status, ageMs, kept) => {
      const event = await db().webhookEvent.create({
        data: {
          appId: app.app.id,
          type: "INSTALL",
          payload: { type: "INSTALL" },
          targetUrl: "https://app.example.test/hook",
          status,
          createdAt: ago(ageMs),
          deliveryLogs: {
            create: [
              { durationMs: 12, statusCode: 200 },
              { durationMs: 15, statusCode: 500 },
            ],
          },
        },
      });
      await prune();
      expect(await exists.webhookEvent(event.id)).toBe(kept);
      expect(await db().webhookDelivery.count({ where: { eventId: event.id } })).toBe(kept ? 2 : 0);
    },
  );
});

describe("batches", () => {
  it("deletes more rows than one batch holds, a batch at a time", async () => {
    const g = await grant();
    await db().refreshToken.create({ data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) } });
    await db().accessToken.createMany({
      data: Array.from({ length: 1_203 }, () => ({ jti: randomUUID(), grantId: g.id, expiresAt: ago(DAY) })),
    });
    const summary = await prune({ batchSize: 100 });
    expect(summary.accessTokens).toBe(1_203);
    expect(summary.skipped).toBe(false);
    // 13 batches of access tokens (the last one short), at least one for every other kind.
    expect(summary.batches).toBeGreaterThanOrEqual(13 + 7);
    expect(await db().accessToken.count({ where: { grantId: g.id } })).toBe(0);
    expect(await exists.grant(g.id)).toBe(true);
  });

  it("a run with nothing due deletes nothing", async () => {
    await prune();
    const summary = await prune();
    expect(summary.skipped).toBe(false);
    // Every kind the summary counts (the typed zero lists them all) is 0.
    for (const kind of Object.keys(noneDeleted()) as (keyof PruneCounts)[]) expect(summary[kind], kind).toBe(0);
  });
});

describe("replay detection still works for rows younger than the horizon", () => {
  type Pair = Record<string, unknown> & { refresh_token: string; refreshTokenId: string };
  const exchangeCode = (code: string) =>
    tokenEndpoint(formRequest("/oauth/token", codeGrant(app, code, "Location"))) as Promise<Pair>;
  const refresh = (token: string) =>
    tokenEndpoint(formRequest("/oauth/token", refreshGrant(app, token))) as Promise<Pair>;

  async function freshInstall() {
    const { code } = await install(installer, app.app.clientId, {
      level: "location",
      locationId: agency.locations[0]!.id,
    });
    const body = await exchangeCode(code);
    const { grantId } = await db().refreshToken.findUniqueOrThrow({ where: { id: body.refreshTokenId } });
    return { code, body, grantId };
  }

  it("a code replayed after a run (expired 7 days - 1 minute ago) still revokes its grant", async () => {
    const { code, grantId } = await freshInstall();
    const row = await db().authorizationCode.findFirstOrThrow({ where: { grants: { some: { id: grantId } } } });
    await db().authorizationCode.update({
      where: { id: row.id },
      data: { expiresAt: ago(PRUNE_HORIZONS.codePastExpiryMs - 60_000) },
    });
    await prune();
    await expect(exchangeCode(code)).rejects.toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(/already used/),
    });
    expect((await db().tokenGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
  });

  it("a rotated refresh token replayed after a run (used 300 days ago, 65 days of life left) revokes its family", async () => {
    const { body, grantId } = await freshInstall();
    const next = await refresh(body.refresh_token);
    await db().refreshToken.update({
      where: { id: body.refreshTokenId },
      data: { consumedAt: ago(300 * DAY), expiresAt: ago(-65 * DAY) },
    });
    await prune();
    await expect(refresh(body.refresh_token)).rejects.toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(/already used/),
    });
    expect((await db().tokenGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
    await expect(refresh(next.refresh_token)).rejects.toMatchObject({ code: "invalid_grant" });
  });

  it("a rotated refresh token expired 1 day - 1 minute ago, replayed after a run, still revokes its family", async () => {
    const { body, grantId } = await freshInstall();
    await refresh(body.refresh_token);
    await db().refreshToken.update({
      where: { id: body.refreshTokenId },
      data: { consumedAt: ago(366 * DAY), expiresAt: ago(PRUNE_HORIZONS.refreshTokenPastExpiryMs - 60_000) },
    });
    await prune();
    await expect(refresh(body.refresh_token)).rejects.toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(/already used/),
    });
    expect((await db().tokenGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
  });

  it("past the horizon the pruned token is refused as unknown, and its live successor still works", async () => {
    const { body } = await freshInstall();
    const next = await refresh(body.refresh_token);
    await db().refreshToken.update({
      where: { id: body.refreshTokenId },
      data: { consumedAt: ago(366 * DAY), expiresAt: ago(PRUNE_HORIZONS.refreshTokenPastExpiryMs + 60_000) },
    });
    await prune();
    await expect(refresh(body.refresh_token)).rejects.toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(/not valid/),
    });
    await expect(refresh(next.refresh_token)).resolves.toMatchObject({ token_type: "Bearer" });
  });
});

describe.skipIf(!process.env.DATABASE_URL?.startsWith("postgres"))("one instance at a time (PostgreSQL)", () => {
  it("a run finds the lock held by another instance and stops without deleting", async () => {
    const g = await grant();
    await db().refreshToken.create({ data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) } });
    const jti = randomUUID();
    await db().accessToken.create({ data: { jti, grantId: g.id, expiresAt: ago(DAY) } });
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock(hashtext('maintenance:prune'))");
      const summary = await prune();
      expect(summary).toMatchObject({ skipped: true, accessTokens: 0 });
      expect(await exists.accessToken(jti)).toBe(true);
      await other.query("COMMIT");
      expect(await prune()).toMatchObject({ skipped: false, accessTokens: 1 });
      expect(await exists.accessToken(jti)).toBe(false);
    } finally {
      await other.end().catch(() => {});
    }
  });
});

// Unscoped (as the server runs it), so only where this file has the database to itself.
describe.skipIf(process.env.DATABASE_URL?.startsWith("postgres"))("the loop started with the server (PGlite)", () => {
  it("prunes on its interval until stopped", async () => {
    const g = await grant();
    await db().refreshToken.create({ data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) } });
    const jti = randomUUID();
    await db().accessToken.create({ data: { jti, grantId: g.id, expiresAt: ago(DAY) } });
    startPruner({ intervalMs: 50, firstRunDelayMs: 0 });
    try {
      await expect.poll(() => exists.accessToken(jti), { timeout: 10_000 }).toBe(false);
    } finally {
      await stopPruner();
    }
    const later = randomUUID();
    await db().accessToken.create({ data: { jti: later, grantId: g.id, expiresAt: ago(DAY) } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await exists.accessToken(later)).toBe(true);
  });
});

// Notifications are global: only a database this file has to itself tells whose they are.
describe.skipIf(process.env.DATABASE_URL?.startsWith("postgres"))("cache notifications (PGlite)", () => {
  it("its deletes send no NOTIFY token_state; any other delete still does", async () => {
    const pglite = databaseHandle().pglite;
    if (!pglite) throw new Error("expected PGlite");
    const heard: string[] = [];
    const unlisten = await pglite.listen("token_state", (payload: string) => heard.push(payload));
    try {
      const g = await grant();
      await db().refreshToken.create({ data: { tokenHash: randomUUID(), grantId: g.id, expiresAt: ago(-DAY) } });
      const pruned = randomUUID();
      const deleted = randomUUID();
      await db().accessToken.createMany({
        data: [
          { jti: pruned, grantId: g.id, expiresAt: ago(DAY) },
          { jti: deleted, grantId: g.id, expiresAt: ago(-DAY) },
        ],
      });
      heard.length = 0;
      await prune();
      expect(await exists.accessToken(pruned)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([]);
      await db().accessToken.delete({ where: { jti: deleted } });
      await expect.poll(() => heard, { timeout: 5_000 }).toContain("AccessToken");
    } finally {
      await unlisten();
    }
  });
});
