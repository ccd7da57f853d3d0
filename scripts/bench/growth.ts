import type pg from "pg";
import type { PruneSummary } from "@/lib/maintenance/prune";
import { markdownTable } from "./report";

/**
 * Part of `npm run bench -- --scale`: how many rows are left after N simulated days of steady
 * issuing with the pruner on. Rows are written in bulk with the timestamps they would have had
 * (`sim-` ids), and after each simulated day the pruner runs with its clock at the end of that day,
 * as the server's loop would have. Per day:
 * - `families` installs refresh `refreshesPerDay` times each: every refresh consumes the family's
 *   refresh token and issues a refresh token (365 days) and an access token (86399 s);
 * - `installsPerDay` short-lived installs: a code (10 minutes, consumed at once), a grant with its
 *   first refresh and access token, revoked (uninstalled) 12 hours later, and its INSTALL and
 *   UNINSTALL webhook events, delivered at the first attempt (one delivery log each).
 */

export interface GrowthOptions {
  days: number;
  families: number;
  refreshesPerDay: number;
  installsPerDay: number;
}

export interface GrowthOwner {
  appId: string;
  installationId: string;
  userType: string;
  companyId: string;
  locationId: string | null;
  userId: string;
}

export interface GrowthResult {
  options: GrowthOptions;
  rows: { table: string; issued: number; left: number; keptFor: string }[];
  insertSeconds: number;
  pruneSeconds: number;
  pruneBatches: number;
}

const DAY_MS = 24 * 3_600_000;
const iso = (d: Date) => d.toISOString();

export async function simulateGrowth(
  client: pg.Client,
  owner: GrowthOwner,
  options: GrowthOptions,
  pruneOnce: (options: { now: Date; pauseMs: number }) => Promise<PruneSummary>,
  say: (message: string) => void,
): Promise<GrowthResult> {
  // Start after every row the latency measurements wrote, so the simulation's clock only moves forward.
  const start = new Date(Date.now() + DAY_MS);
  const { families, refreshesPerDay, installsPerDay } = options;
  const step = 86_400 / refreshesPerDay;
  const installStep = 86_400 / Math.max(1, installsPerDay);
  let insertMs = 0;
  let pruneMs = 0;
  let pruneBatches = 0;
  const issued: Record<string, number> = {};
  const add = (table: string, n: number) => {
    issued[table] = (issued[table] ?? 0) + n;
  };

  let t0 = performance.now();
  await client.query(
    `INSERT INTO "TokenGrant" (id, "appId", "installationId", "userType", "companyId", "locationId", "userId", scopes, "createdAt")
     SELECT 'sim-g-' || f, $1, $2, $3::"UserType", $4, $5, $6, '{}', $7::timestamp
     FROM generate_series(0, $8 - 1) f`,
    [
      owner.appId,
      owner.installationId,
      owner.userType,
      owner.companyId,
      owner.locationId,
      owner.userId,
      iso(start),
      families,
    ],
  );
  add("TokenGrant", families);
  insertMs += performance.now() - t0;

  for (let d = 0; d < options.days; d++) {
    const dayStart = new Date(start.getTime() + d * DAY_MS);
    t0 = performance.now();
    // The families' refreshes of the day: token k of a family is consumed by token k+1.
    await client.query(
      `INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt", "consumedAt", "createdAt")
       SELECT 'sim-rt-' || $2 || '-' || h || '-' || f, 'sim-rt-' || $2 || '-' || h || '-' || f, 'sim-g-' || f,
              t + interval '365 days', t + make_interval(secs => $5::float8), t
       FROM generate_series(0, $3 - 1) f, generate_series(0, $4 - 1) h,
            LATERAL (SELECT $1::timestamp + make_interval(secs => h * $5::float8) AS t) x`,
      [iso(dayStart), d, families, refreshesPerDay, step],
    );
    await client.query(
      `INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
       SELECT 'sim-at-' || $2 || '-' || h || '-' || f, 'sim-g-' || f, t + interval '86399 seconds', t
       FROM generate_series(0, $3 - 1) f, generate_series(0, $4 - 1) h,
            LATERAL (SELECT $1::timestamp + make_interval(secs => h * $5::float8) AS t) x`,
      [iso(dayStart), d, families, refreshesPerDay, step],
    );
    add("RefreshToken", families * refreshesPerDay);
    add("AccessToken", families * refreshesPerDay);

    if (installsPerDay > 0) {
      const install = `FROM generate_series(0, $3 - 1) i, LATERAL (SELECT $1::timestamp + make_interval(secs => i * $4::float8) AS t) x`;
      const day = [iso(dayStart), d, installsPerDay, installStep];
      await client.query(
        `INSERT INTO "AuthorizationCode" (id, "codeHash", "appId", "installationId", "userId", "redirectUri", scopes, "expiresAt", "consumedAt", "createdAt")
         SELECT 'sim-code-' || $2 || '-' || i, 'sim-code-' || $2 || '-' || i, $5, $6, $7, 'https://app.example.test/cb', '{}',
                t + interval '10 minutes', t + interval '1 second', t
         ${install}`,
        [...day, owner.appId, owner.installationId, owner.userId],
      );
      await client.query(
        `INSERT INTO "TokenGrant" (id, "appId", "installationId", "authorizationCodeId", "userType", "companyId", "locationId", "userId", scopes, "revokedAt", "createdAt")
         SELECT 'sim-ig-' || $2 || '-' || i, $5, $6, 'sim-code-' || $2 || '-' || i, $7::"UserType", $8, $9, $10, '{}',
                t + interval '12 hours', t
         ${install}`,
        [...day, owner.appId, owner.installationId, owner.userType, owner.companyId, owner.locationId, owner.userId],
      );
      await client.query(
        `INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt", "createdAt")
         SELECT 'sim-irt-' || $2 || '-' || i, 'sim-irt-' || $2 || '-' || i, 'sim-ig-' || $2 || '-' || i, t + interval '365 days', t
         ${install}`,
        day,
      );
      await client.query(
        `INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
         SELECT 'sim-iat-' || $2 || '-' || i, 'sim-ig-' || $2 || '-' || i, t + interval '86399 seconds', t
         ${install}`,
        day,
      );
      await client.query(
        `INSERT INTO "WebhookEvent" (id, "appId", type, payload, "targetUrl", status, attempts, "nextAttemptAt", "retryStartedAt", "deliveredAt", "lastAttemptAt", "lastStatus", "createdAt")
         SELECT 'sim-ev-' || $2 || '-' || i || '-' || kind, $5, kind, json_build_object('type', kind), 'https://app.example.test/hook',
                'delivered', 1, at, at, at + interval '1 second', at + interval '1 second', 200, at
         ${install}, LATERAL (VALUES ('INSTALL', t), ('UNINSTALL', t + interval '12 hours')) k(kind, at)`,
        [...day, owner.appId],
      );
      await client.query(
        `INSERT INTO "WebhookDelivery" (id, "eventId", attempt, "attemptedAt", "statusCode", "durationMs")
         SELECT 'sim-wd-' || $2 || '-' || i || '-' || kind, 'sim-ev-' || $2 || '-' || i || '-' || kind, 1, t, 200, 40
         ${install}, LATERAL (VALUES ('INSTALL'), ('UNINSTALL')) k(kind)`,
        day,
      );
      for (const table of ["AuthorizationCode", "TokenGrant", "RefreshToken", "AccessToken"])
        add(table, installsPerDay);
      add("WebhookEvent", 2 * installsPerDay);
      add("WebhookDelivery", 2 * installsPerDay);
    }
    insertMs += performance.now() - t0;

    t0 = performance.now();
    const summary = await pruneOnce({ now: new Date(dayStart.getTime() + DAY_MS), pauseMs: 0 });
    pruneMs += performance.now() - t0;
    pruneBatches += summary.batches;
    if ((d + 1) % 5 === 0 || d + 1 === options.days) say(`  simulated day ${d + 1} of ${options.days}`);
  }

  const left = async (table: string, column = "id") => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${table}" WHERE "${column}" LIKE 'sim-%'`,
    );
    return Number(rows[0]?.n ?? 0);
  };
  const keptFor: Record<string, string> = {
    AccessToken: "5 minutes past exp (86399 s)",
    RefreshToken: "1 day past their 365-day life; a revoked family's 30 days after revocation",
    TokenGrant: "until their last refresh token goes; revoked ones 30 days",
    AuthorizationCode: "7 days past expiry (10 minutes)",
    WebhookEvent: "30 days (delivered or failed)",
    WebhookDelivery: "with their event",
  };
  const rows = [];
  for (const table of Object.keys(keptFor)) {
    rows.push({
      table,
      issued: issued[table] ?? 0,
      left: await left(table, table === "AccessToken" ? "jti" : "id"),
      keptFor: keptFor[table] as string,
    });
  }
  return { options, rows, insertSeconds: insertMs / 1000, pruneSeconds: pruneMs / 1000, pruneBatches };
}

export function growthTable(result: GrowthResult): string {
  const fmt = (n: number) => n.toLocaleString("en");
  return markdownTable(
    ["Table", "rows written", "rows left", "kept"],
    [
      ...result.rows.map((r) => [r.table, fmt(r.issued), fmt(r.left), r.keptFor]),
      ["all", fmt(result.rows.reduce((a, r) => a + r.issued, 0)), fmt(result.rows.reduce((a, r) => a + r.left, 0)), ""],
    ],
    (column) => column === 1 || column === 2,
  );
}

export function growthSummary(result: GrowthResult): string {
  const { days, families, refreshesPerDay, installsPerDay } = result.options;
  return `${days} simulated days: ${families.toLocaleString("en")} installs refreshing ${refreshesPerDay} times a day (${(families * refreshesPerDay).toLocaleString("en")} refresh grants a day), and ${installsPerDay.toLocaleString("en")} installs a day uninstalled 12 hours later, each with a code and two delivered webhook events. The pruner ran after each day with its clock at the day's end: ${result.pruneBatches.toLocaleString("en")} batches, ${result.pruneSeconds.toFixed(1)} s in all (bulk insert ${result.insertSeconds.toFixed(1)} s).`;
}
