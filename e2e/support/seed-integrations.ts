import { randomBytes } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { onServerDatabase } from "./database";
import { test } from "./test";
import { createAgency, type E2eAgency, signIn } from "./world";

/**
 * Private integrations written straight into the server's database with their dates in the past
 * or future (time moved by the seeding, not by waiting), for the triage screens' specs.
 * PostgreSQL only (see onServerDatabase): on PGlite nothing is written and the map is empty.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;

export interface Seed {
  name: string;
  description?: string;
  scopes?: string[];
  /** Days ago it was created (and its first token issued). */
  created: number;
  /** Days ago its current token was issued (default: `created`). */
  token?: number;
  /** Hours ago it was last used, or null for never. */
  usedHoursAgo: number | null;
  /** Its `Expires` date as whole UTC days from today (negative: passed), or undefined for never. */
  expiresDay?: number;
  rotating?: boolean;
  /** Reported as leaked: revoked a day ago. */
  revoked?: boolean;
}

/** The end of the UTC day `n` days from today: what `Expires` on that day stores. */
export function endOfDay(n: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + n + 1));
}

const hex4 = () => randomBytes(2).toString("hex");
const id = () => `e2e${randomBytes(10).toString("hex")}`;

/** Writes agency-level integrations of `companyId`; answers each one's token hint by name. */
export async function seedIntegrations(companyId: string, ownerId: string, rows: Seed[]): Promise<Map<string, string>> {
  const hints = new Map<string, string>();
  for (const row of rows) {
    const integrationId = id();
    const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const hint = `pit-…${hex4()}`;
    const written = await onServerDatabase(
      `WITH pi AS (
         INSERT INTO "PrivateIntegration" (id, "companyId", "locationId", name, description, scopes, "createdByUserId", "createdAt", "updatedAt", "expiresAt", "revokedAt", "revokedReason")
         VALUES ($1, $2, NULL, $3, $4, $5::text[], $6, $7::timestamptz, $7::timestamptz, $8::timestamptz, $14::timestamptz, $15) RETURNING id)
       INSERT INTO "PrivateIntegrationToken" (id, "integrationId", slot, "tokenHash", hint, "createdAt", "lastUsedAt")
       SELECT $9, pi.id, 'current', $10, $11, $12::timestamptz, $13::timestamptz FROM pi`,
      [
        integrationId,
        companyId,
        row.name,
        row.description ?? "",
        row.scopes ?? ["locations.readonly"],
        ownerId,
        at(row.created * DAY),
        row.expiresDay === undefined ? null : endOfDay(row.expiresDay).toISOString(),
        id(),
        randomBytes(32).toString("hex"),
        hint,
        at((row.token ?? row.created) * DAY),
        row.usedHoursAgo === null ? null : at(row.usedHoursAgo * HOUR),
        row.revoked ? at(DAY) : null,
        row.revoked ? "Reported as leaked by GitHub secret scanning." : null,
      ],
    );
    if (!written) return new Map();
    hints.set(row.name, hint);
    if (row.rotating)
      await onServerDatabase(
        `INSERT INTO "PrivateIntegrationToken" (id, "integrationId", slot, "tokenHash", hint, "createdAt", "expiresAt")
         VALUES ($1, $2, 'previous', $3, $4, $5::timestamptz, $6::timestamptz)`,
        [id(), integrationId, randomBytes(32).toString("hex"), `pit-…${hex4()}`, at(row.created * DAY), endOfDay(3)],
      );
  }
  return hints;
}

/** `count` ordinary integrations, `Sync 01` on: recent, used, a description on every third. */
export const syncSeeds = (count: number): Seed[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `Sync ${String(i + 1).padStart(2, "0")}`,
    description: i % 3 === 0 ? "Nightly job" : "",
    scopes: i % 2 ? ["contacts.readonly", "locations.readonly"] : ["locations.readonly"],
    created: 1 + (i % 9),
    usedHoursAgo: 1 + (i % 20),
  }));

/**
 * A new agency with the 30 integrations of `rows` seeded, its owner signed in on `page` at the
 * agency's Private Integrations screen. On PGlite, where nothing can be seeded, the test is skipped.
 */
export async function onSeededScreen(
  page: Page,
  rows: Seed[],
): Promise<{ agency: E2eAgency; seeded: Map<string, string> }> {
  const agency = await createAgency({ locations: 0, labs: true });
  const seeded = await seedIntegrations(agency.companyId, agency.owner.id, rows);
  test.skip(!seeded.size || !(await onServerDatabase("SELECT 1")), "Seeding needs PostgreSQL (TEST_DATABASE_URL).");
  await signIn(page, agency.owner.email);
  await page.goto("/settings/private-integrations");
  await expect(page.getByRole("heading", { name: "30 integrations" })).toBeVisible();
  return { agency, seeded };
}
