import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { migrationsDir } from "@/lib/db/migrations";
import { makeAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { findAppByClientId } from "./client-lookup";

/**
 * Existing apps get client ids of the platform's shape `<appId>-<suffix>` in the
 * migration. Here the migration's own UPDATE runs again over rows made with the old shapes.
 */
function clientIdMigrationSql(): string {
  const dir = readdirSync(migrationsDir).find((d) => d.endsWith("_app_webhook_secret_and_client_id"));
  if (!dir) throw new Error("migration not found");
  const sql = readFileSync(join(migrationsDir, dir, "migration.sql"), "utf8");
  return sql.slice(sql.indexOf('UPDATE "App"'));
}

async function appWithClientId(companyId: string, clientId: string) {
  return db().app.create({
    data: {
      companyId,
      name: `Old ${clientId}`,
      clientId,
      clientSecretHash: "x",
      clientSecretHint: "xxxx",
      redirectUris: ["https://app.example/cb"],
      scopes: [],
      installSetting: "everyone",
    },
  });
}

describe("the client id migration", () => {
  it("gives old client ids the shape <appId>-<suffix>, keeping an old hex suffix, and leaves new ones alone", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const hexSuffix = uniqueSuffix().slice(0, 8);
    const oldHex = await appWithClientId(
      company.id,
      `${uniqueSuffix()}${uniqueSuffix()}${"ab".repeat(2)}-${hexSuffix}`,
    );
    const other = await appWithClientId(company.id, `client-${uniqueSuffix()}`);
    const current = await appWithClientId(company.id, `placeholder-${uniqueSuffix()}`);
    const currentId = `${current.id}-0badcafe`;
    await db().app.update({ where: { id: current.id }, data: { clientId: currentId } });

    // Only over this test's rows: other test files may share the PostgreSQL database.
    const ids = [oldHex.id, other.id, current.id].map((id) => `'${id}'`).join(", ");
    await db().$executeRawUnsafe(`${clientIdMigrationSql().trim().replace(/;$/, "")} AND "id" IN (${ids})`);

    const after = await db().app.findMany({
      where: { id: { in: [oldHex.id, other.id, current.id] } },
      select: { id: true, clientId: true },
    });
    const byId = new Map(after.map((a) => [a.id, a.clientId]));
    expect(byId.get(oldHex.id)).toBe(`${oldHex.id}-${hexSuffix}`);
    expect(byId.get(other.id)).toMatch(new RegExp(`^${other.id}-[0-9a-f]{8}$`));
    expect(byId.get(current.id)).toBe(currentId);
    for (const [id, clientId] of byId) {
      expect(clientId.split("-")[0]).toBe(id);
      expect((await findAppByClientId(clientId))?.id).toBe(id);
    }
    // The old client id no longer names the app.
    expect(await findAppByClientId(other.clientId)).toBeUndefined();
  });
});
