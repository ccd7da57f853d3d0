import pg from "pg";
import { describe, expect, it } from "vitest";
import type { HttpError } from "@/lib/api/http-error";
import { databaseHandle, db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { makeAgency } from "@/lib/testing/fixtures";
import { codeExchange, install, makeApp } from "@/lib/testing/oauth";
import { tokenEndpoint } from "../token-endpoint";

/**
 * A code exchanged while an uninstall of its installation is in flight: the grant's statement
 * takes the installation's row lock (FOR SHARE), so it waits for the uninstall's commit and then
 * sees the installation gone. Without the lock it would read the installation as still installed
 * and write a grant that the uninstall, which revoked by installation before, never saw. Needs two
 * connections at once: PostgreSQL only (PGlite runs one transaction at a time).
 */
describe.skipIf(databaseHandle().kind !== "postgresql")("authorization_code grant against an uninstall", () => {
  it("waits for the uninstall's commit, then refuses: no grant outlives the uninstall", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    const { code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const installation = await db().installation.findFirstOrThrow({
      where: { appId: app.app.id, companyId: agency.company.id },
      select: { id: true },
    });

    const uninstall = new pg.Client({ connectionString: env().DATABASE_URL, application_name: "race-uninstall" });
    const observer = new pg.Client({ connectionString: env().DATABASE_URL, application_name: "race-observer" });
    await uninstall.connect();
    await observer.connect();
    try {
      await uninstall.query("BEGIN");
      await uninstall.query(`UPDATE "Installation" SET status = 'uninstalled' WHERE id = $1`, [installation.id]);
      const { rows } = await uninstall.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const pid = rows[0]!.pid;

      let settled = false;
      const outcome = tokenEndpoint(codeExchange(app, code, "Company")).then(
        (body) => ({ ok: true as const, body }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      void outcome.then(() => {
        settled = true;
      });

      let waited = false;
      for (let i = 0; i < 400 && !settled && !waited; i++) {
        const blocked = await observer.query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [
          pid,
        ]);
        waited = (blocked.rowCount ?? 0) > 0;
        if (!waited) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await uninstall.query("COMMIT");
      const result = await outcome;

      expect(waited, "the exchange waits for the uninstall's lock on the installation").toBe(true);
      expect(result.ok).toBe(false);
      if (!result.ok) expect((result.error as HttpError).code).toBe("invalid_grant");
      expect(await db().tokenGrant.count({ where: { installationId: installation.id } })).toBe(0);
    } finally {
      await uninstall.end();
      await observer.end();
    }
  });
});
