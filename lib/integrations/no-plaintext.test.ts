import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { listAuditLog } from "./audit-log";
import { cancelRotation, rotateLater, rotateNow } from "./lifecycle";
import { listPrivateIntegrations } from "./read";
import { verifyPrivateIntegrationToken } from "./verify";

/** Every row of every table in the public schema, as JSON text. */
async function databaseDump(): Promise<string> {
  const tables = await db().$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await db().$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(t)::text AS row FROM "${table_name.replaceAll('"', '""')}" t`,
    );
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join("\n");
}

describe("no plaintext token anywhere in the database", () => {
  it("after creating and rotating at both levels, only keyed hashes and hints are stored", async () => {
    const { company, locations, owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const tokens: string[] = [];
    for (const target of [
      { level: "agency", companyId: company.id } as const,
      { level: "location", locationId: locations[0]!.id } as const,
    ]) {
      const created = await makeIntegration(
        { owner },
        {
          owner: target,
          name: "Scan me",
          scopes: target.level === "agency" ? ["users.readonly"] : ["contacts.write"],
        },
      );
      tokens.push(created.token);
      tokens.push((await rotateLater(owner, target, created.integration.id)).token);
      await cancelRotation(owner, target, created.integration.id);
      tokens.push((await rotateNow(owner, target, created.integration.id)).token);
      tokens.push((await rotateLater(owner, target, created.integration.id)).token);
      for (const token of tokens) await verifyPrivateIntegrationToken(token);
      // What the screens receive carries no secret either.
      const shown = JSON.stringify([await listPrivateIntegrations(owner, target), await listAuditLog(owner, target)]);
      for (const token of tokens) expect(shown).not.toContain(token.slice(4, 16));
    }
    const dump = await databaseDump();
    expect(dump).toContain("pit-…"); // the hints are there, so the scan does read the token table
    for (const token of tokens) {
      const hex = token.slice(4).replaceAll("-", "");
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice(4));
      expect(dump).not.toContain(hex);
      expect(dump).not.toContain(token.slice(4, 17)); // the first 8-4 groups
    }
  });
});
