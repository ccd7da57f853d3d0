// Over 250 lines on purpose: both forced interleavings of an exchange and a revocation need the
// same pause and lock-wait plumbing, kept beside the cases.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import type { CreatedApp } from "@/lib/apps/registry";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { formRequest, install, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { onPostgres } from "@/lib/testing/postgres";
import { verifyAccessToken } from "@/lib/tokens/access-token";
import type { Principal } from "@/lib/tokens/principal";
import { type ExchangePauses, exchangeForLocationToken } from "./location-token";
import { revokeToken } from "./revoke";
import { tokenEndpoint } from "./token-endpoint";
import { uninstallApp } from "./uninstall";

/**
 * /oauth/locationToken against a revocation that runs at the same time. The
 * exchange checks the Company token's grant, the installation and the sub-account, then writes a
 * child grant with a 365-day refresh token. A revocation of the parent must never leave that child
 * working, whichever commits first. The two interleavings are forced, not hoped for, through the
 * exchange's test pauses (`ExchangePauses`):
 *
 * (a) the revocation commits between the exchange's first checks and its transaction
 *     (`afterChecks` runs it to the end): the exchange must then refuse.
 * (b) the exchange has taken its locks and written the child when the revocation starts
 *     (`beforeCommit` starts it and waits until PostgreSQL reports it blocked by the exchange's
 *     backend, `pg_blocking_pids`, seen from a connection of its own): the revocation must wait
 *     for the commit and then revoke the child with its parent.
 *
 * (b) needs two connections at once, so it runs on PostgreSQL only; PGlite has one connection
 * and runs one transaction at a time, so (a) is the only interleaving there.
 */

interface Setup {
  agency: TestAgency;
  app: CreatedApp;
  companyToken: string;
  companyRefresh: string;
  principal: Principal;
  parentGrantId: string;
  installationId: string;
}

/** An agency with an app installed at agency level, its Company grant and the principal of its Company token. */
async function installedAgency(): Promise<Setup> {
  const agency = await makeAgency({ locations: 2 });
  const app = await makeApp(agency.company.id);
  const tokens = await installAndExchange(agency.owner, app, {
    level: "agency",
    locationIds: agency.locations.map((l) => l.id),
  });
  const verified = await verifyAccessToken(tokens.access_token);
  if (!verified.ok) throw new Error("the Company token does not verify");
  const row = await db().accessToken.findUniqueOrThrow({
    where: { jti: verified.principal.tokenId },
    select: { grant: { select: { id: true, installationId: true } } },
  });
  return {
    agency,
    app,
    companyToken: tokens.access_token,
    companyRefresh: tokens.refresh_token,
    principal: verified.principal,
    parentGrantId: row.grant.id,
    installationId: row.grant.installationId,
  };
}

/** The sub-account every exchange here asks for; the re-install below drops it. */
const target = (s: Setup) => s.agency.locations[0]!.id;

interface Revocation {
  name: string;
  run(s: Setup): Promise<unknown>;
  /** What the exchange answers when the revocation committed first. */
  refusal: "invalid_token" | "forbidden";
}

const revocations: Revocation[] = [
  {
    name: "family revocation (RFC 7009 revoke of the Company refresh token)",
    run: (s) =>
      revokeToken(
        formRequest("/oauth/revoke", {
          token: s.companyRefresh,
          client_id: s.app.app.clientId,
          client_secret: s.app.clientSecret,
        }),
      ),
    refusal: "invalid_token",
  },
  {
    name: "uninstall",
    run: (s) => uninstallApp({ installationId: s.installationId }),
    refusal: "invalid_token",
  },
  {
    name: "re-install that drops the sub-account",
    run: (s) =>
      install(s.agency.owner, s.app.app.clientId, { level: "agency", locationIds: [s.agency.locations[1]!.id] }),
    refusal: "forbidden",
  },
];

/** The exchange of `s`'s Company grant for its target sub-account, paused where `pauses` says. */
function exchangePausing(s: Setup, pauses: ExchangePauses) {
  return exchangeForLocationToken({
    principal: s.principal,
    form: { companyId: s.agency.company.id, locationId: target(s) },
    traceId: "race-test",
    pauses,
  });
}

/** Location grants exchanged from the parent that nothing has revoked. */
const liveChildren = (s: Setup) =>
  db().tokenGrant.count({ where: { parentGrantId: s.parentGrantId, revokedAt: null } });

async function refreshWorks(s: Setup, refreshToken: string): Promise<boolean> {
  try {
    await tokenEndpoint(
      formRequest("/oauth/token", {
        grant_type: "refresh_token",
        client_id: s.app.app.clientId,
        client_secret: s.app.clientSecret,
        refresh_token: refreshToken,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof HttpError && error.code === "invalid_grant") return false;
    throw error;
  }
}

describe("(a) the revocation commits after the exchange's first checks, before its transaction", () => {
  for (const revocation of revocations) {
    it(`${revocation.name}: the exchange refuses and leaves no child grant`, async () => {
      const s = await installedAgency();
      const outcome = await exchangePausing(s, { afterChecks: async () => void (await revocation.run(s)) }).then(
        (body) => ({ ok: true as const, body }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (outcome.ok) {
        // What the bug left: a Location token issued after its parent was revoked. Show whether it works.
        const works = (await verifyAccessToken(outcome.body.access_token as string)).ok;
        expect.fail(`the exchange succeeded after the ${revocation.name}; its Location token works: ${works}`);
      }
      expect(outcome.error).toBeInstanceOf(HttpError);
      expect((outcome.error as HttpError).code).toBe(revocation.refusal);
      expect(await liveChildren(s)).toBe(0);
    });
  }
});

describe.skipIf(!onPostgres())("(b) the exchange holds its locks when the revocation starts", () => {
  let observer: pg.Client;

  beforeAll(async () => {
    observer = new pg.Client({ connectionString: env().DATABASE_URL, application_name: "race-observer" });
    await observer.connect();
  });
  afterAll(async () => {
    await observer?.end();
  });

  /** Resolves once some backend waits for a lock that `pid` holds (bounded: 400 looks, 25 ms apart). */
  async function blockedBy(pid: number): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const { rowCount } = await observer.query(
        "SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
        [pid],
      );
      if (rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`nothing waited for backend ${pid} within 10 s`);
  }

  for (const revocation of revocations) {
    it(`${revocation.name}: waits for the exchange's commit, then revokes the child with its parent`, async () => {
      const s = await installedAgency();
      let running: Promise<unknown> | undefined;
      let interleaving: "revocation waited for the exchange" | "revocation finished inside the exchange" | undefined;
      const body = await exchangePausing(s, {
        beforeCommit: async (tx) => {
          const [backend] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          running = revocation.run(s);
          // Never left unhandled: awaited below whichever way the race goes.
          running.catch(() => {});
          interleaving = await Promise.race([
            running.then(() => "revocation finished inside the exchange" as const),
            blockedBy(backend!.pid).then(() => "revocation waited for the exchange" as const),
          ]);
        },
      });
      await running;
      const child = { access: body.access_token as string, refresh: body.refresh_token as string };

      expect(await liveChildren(s)).toBe(0);
      expect(await verifyAccessToken(child.access)).toEqual({ ok: false, reason: "revoked" });
      expect(await refreshWorks(s, child.refresh)).toBe(false);
      expect(interleaving).toBe("revocation waited for the exchange");
    });
  }

  it("after the uninstall, installing again does not bring the child back", async () => {
    const s = await installedAgency();
    let running: Promise<unknown> | undefined;
    const body = await exchangePausing(s, {
      beforeCommit: async (tx) => {
        const [backend] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        running = uninstallApp({ installationId: s.installationId });
        running.catch(() => {});
        await Promise.race([running, blockedBy(backend!.pid)]);
      },
    });
    await running;
    await install(s.agency.owner, s.app.app.clientId, {
      level: "agency",
      locationIds: s.agency.locations.map((l) => l.id),
    });
    expect(await verifyAccessToken(body.access_token as string)).toEqual({ ok: false, reason: "revoked" });
    expect(await refreshWorks(s, body.refresh_token as string)).toBe(false);
  });
});

describe("the data migration revokes Location grants that escaped before the fix", () => {
  it("children of a revoked parent, of an uninstalled installation or of a dropped sub-account; no others", async () => {
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { migrationsDir } = await import("@/lib/db/migrations");
    const sql = readFileSync(
      join(migrationsDir, "20261123010000_revoke_orphaned_location_grants", "migration.sql"),
      "utf8",
    );
    // Escaped children as the race left them: written directly, their parent's state changed after.
    const child = (s: Setup, locationId = target(s)) =>
      db().tokenGrant.create({
        data: {
          appId: s.principal.appId!,
          installationId: s.installationId,
          parentGrantId: s.parentGrantId,
          userType: "Location",
          companyId: s.agency.company.id,
          locationId,
          userId: s.agency.owner.id,
          scopes: [],
        },
        select: { id: true },
      });
    const [revokedParent, uninstalled, dropped, healthy] = await Promise.all([
      installedAgency(),
      installedAgency(),
      installedAgency(),
      installedAgency(),
    ]);
    const escaped = [await child(revokedParent), await child(uninstalled), await child(dropped)];
    const kept = await child(healthy);
    await db().tokenGrant.update({ where: { id: revokedParent.parentGrantId }, data: { revokedAt: new Date() } });
    await db().installation.update({ where: { id: uninstalled.installationId }, data: { status: "uninstalled" } });
    await db().installationLocation.delete({
      where: { installationId_locationId: { installationId: dropped.installationId, locationId: target(dropped) } },
    });

    await db().$executeRawUnsafe(sql);

    const after = await db().tokenGrant.findMany({
      where: { id: { in: [...escaped, kept].map((g) => g.id) } },
      select: { id: true, revokedAt: true },
    });
    const revoked = new Set(after.filter((g) => g.revokedAt !== null).map((g) => g.id));
    expect(escaped.map((g) => revoked.has(g.id))).toEqual([true, true, true]);
    expect(revoked.has(kept.id)).toBe(false);
  });
});
