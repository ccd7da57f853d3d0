import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { formRequest, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";
import { tokenEndpoint } from "../token-endpoint";

/**
 * Two instances on one PostgreSQL, made deterministic: "instance A" is a second connection that
 * runs the statements of A's refresh transaction and holds them uncommitted; this process is
 * instance B. We wait until B's request is blocked behind A (pg_locks), then let A commit or roll
 * back. PGlite has one connection, so it cannot interleave (scripts/stress.ts runs the same race
 * through two real servers on PostgreSQL).
 */
describe.skipIf(!process.env.DATABASE_URL?.startsWith("postgres"))("two instances racing on PostgreSQL", () => {
  let agency: TestAgency;
  let app: CreatedApp;
  const connections: pg.Client[] = [];

  beforeAll(async () => {
    agency = await makeAgency({ locations: 1 });
    app = await makeApp(agency.company.id);
  });

  afterEach(async () => {
    for (const c of connections.splice(0)) await c.end().catch(() => {});
    delete process.env.REFRESH_TOKEN_REUSE_SECONDS;
    resetEnvCache();
  });

  async function connection(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    connections.push(client);
    return client;
  }

  /** Instance A's transaction, begun and left open: its id, for finding who waits on it. */
  async function openTransaction(): Promise<{ a: pg.Client; xid: string }> {
    const a = await connection();
    await a.query("BEGIN");
    const { rows } = await a.query<{ xid: string }>("SELECT txid_current()::text AS xid");
    return { a, xid: rows[0]!.xid };
  }

  const exchange = () =>
    installAndExchange(agency.owner, app, { level: "agency", locationIds: [agency.locations[0]!.id] });

  function refresh(refreshToken: string, now = new Date()) {
    return tokenEndpoint(
      formRequest("/oauth/token", {
        grant_type: "refresh_token",
        client_id: app.app.clientId,
        client_secret: app.clientSecret,
        refresh_token: refreshToken,
      }),
      now,
    );
  }

  /** Starts B's request and resolves, with B's outcome to await, once it is blocked on a lock held by transaction `xid`. */
  async function blockedBehind(xid: string, request: () => Promise<Record<string, unknown>>) {
    const observer = await connection();
    let settled = false;
    const outcome = request().then(
      (body) => ({ ok: true as const, body }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    void outcome.then(() => {
      settled = true;
    });
    for (;;) {
      const { rows } = await observer.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
         WHERE NOT granted AND locktype = 'transactionid' AND transactionid::text = $1`,
        [xid],
      );
      // Wrapped: an async function returning the promise itself would wait for it.
      if (rows[0]!.n > 0) return { outcome };
      // B finished without waiting for A: the transaction did not touch the row A holds.
      if (settled)
        throw new Error(`the request did not wait for transaction ${xid} (it answered ok: ${(await outcome).ok})`);
      await new Promise((done) => setTimeout(done, 10));
    }
  }

  /** B's outcome: refused with `invalid_grant`, its description matching `description`. */
  function expectInvalidGrant(
    outcome: { ok: true; body: unknown } | { ok: false; error: unknown },
    description: RegExp,
  ) {
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? undefined : outcome.error).toMatchObject({
      code: "invalid_grant",
      description: expect.stringMatching(description),
    });
  }

  async function family(refreshTokenId: string) {
    const { grantId } = await db().refreshToken.findUniqueOrThrow({ where: { id: refreshTokenId } });
    const grant = await db().tokenGrant.findUniqueOrThrow({ where: { id: grantId } });
    return { grant, tokens: await db().refreshToken.count({ where: { grantId } }) };
  }

  it("B arrives while A's first use is uncommitted: B waits, then gets a pair of the same family (inside the window)", async () => {
    const first = await exchange();
    const { a, xid } = await openTransaction();
    const firstUse = new Date();
    const used = await a.query(`UPDATE "RefreshToken" SET "consumedAt" = $1 WHERE id = $2 AND "consumedAt" IS NULL`, [
      firstUse,
      first.refreshTokenId,
    ]);
    expect(used.rowCount).toBe(1);
    const { outcome: b } = await blockedBehind(xid, () => refresh(first.refresh_token));
    await a.query("COMMIT");
    const result = await b;
    expect(result.ok).toBe(true);
    const body = result.ok ? result.body : {};
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect((await verifyAccessToken(body.access_token as string)).ok).toBe(true);
    const after = await family(body.refreshTokenId as string);
    expect(after.grant.revokedAt).toBeNull();
    expect((await family(first.refreshTokenId as string)).grant.id).toBe(after.grant.id);
    // The first use stays A's: a replay does not move the window.
    const row = await db().refreshToken.findUniqueOrThrow({ where: { id: first.refreshTokenId as string } });
    expect(row.consumedAt?.getTime()).toBe(firstUse.getTime());
  });

  it("REFRESH_TOKEN_REUSE_SECONDS=0: B waits for A, then it is reuse (invalid_grant) and the family is revoked", async () => {
    process.env.REFRESH_TOKEN_REUSE_SECONDS = "0";
    resetEnvCache();
    const first = await exchange();
    const { a, xid } = await openTransaction();
    await a.query(`UPDATE "RefreshToken" SET "consumedAt" = $1 WHERE id = $2 AND "consumedAt" IS NULL`, [
      new Date(),
      first.refreshTokenId,
    ]);
    const { outcome: b } = await blockedBehind(xid, () => refresh(first.refresh_token));
    await a.query("COMMIT");
    expectInvalidGrant(await b, /already used/);
    expect((await family(first.refreshTokenId as string)).grant.revokedAt).not.toBeNull();
  });

  it("A rolls back its first use: B's is the first use, 200", async () => {
    const first = await exchange();
    const { a, xid } = await openTransaction();
    await a.query(`UPDATE "RefreshToken" SET "consumedAt" = $1 WHERE id = $2`, [new Date(), first.refreshTokenId]);
    const now = new Date(Date.now() + 1);
    const { outcome: b } = await blockedBehind(xid, () => refresh(first.refresh_token, now));
    await a.query("ROLLBACK");
    const result = await b;
    expect(result.ok).toBe(true);
    const row = await db().refreshToken.findUniqueOrThrow({ where: { id: first.refreshTokenId as string } });
    expect(row.consumedAt?.getTime()).toBe(now.getTime());
  });

  it("A revokes the family while B replays inside the window: B waits, then fails and issues nothing", async () => {
    const first = await exchange();
    await refresh(first.refresh_token);
    const before = await family(first.refreshTokenId as string);
    const { a, xid } = await openTransaction();
    // What revokeGrants runs on instance A (a reuse after the window, RFC 7009 or an uninstall).
    await a.query(`UPDATE "TokenGrant" SET "revokedAt" = $1 WHERE id = $2 AND "revokedAt" IS NULL`, [
      new Date(),
      before.grant.id,
    ]);
    const { outcome: b } = await blockedBehind(xid, () => refresh(first.refresh_token));
    await a.query("COMMIT");
    expectInvalidGrant(await b, /revoked/);
    expect((await family(first.refreshTokenId as string)).tokens).toBe(before.tokens);
  });
});
