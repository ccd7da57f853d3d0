// npx tsx scripts/redemption-migration.ts: writes a migration that (re)defines the refresh's
// server-side function from its statement as the code now builds it
// (lib/oauth/grants/redemption.ts). lib/oauth/grants/redemption.test.ts fails until the latest
// migration defining it holds exactly that text, so a change to the statement comes with one.
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { redemptionFunctionSql } from "@/lib/oauth/grants/redemption";

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = resolve("prisma/migrations", `${stamp}_refresh_redemption_function`);
mkdirSync(dir, { recursive: true });
const header = `-- Written by scripts/redemption-migration.ts from lib/oauth/grants/redemption.ts: the refresh's one
-- statement as a function, whose plans each backend keeps (a transaction-mode pooler prepares
-- nothing). Prisma does not model functions, so keep this file when squashing migrations.

`;
writeFileSync(resolve(dir, "migration.sql"), header + redemptionFunctionSql());
console.log(`Wrote ${dir}/migration.sql`);
