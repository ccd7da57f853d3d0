// npm run db:migrate -- --name <what_changed>: writes the next migration from prisma/schema.
import { parseArgs } from "node:util";
import { createMigration } from "@/lib/db/migrations";

const { values } = parseArgs({ options: { name: { type: "string" } } });
if (!values.name) {
  console.error("Usage: npm run db:migrate -- --name <what_changed>");
  process.exit(1);
}
const dir = await createMigration(values.name);
console.log(dir ? `Created ${dir}` : "The schema matches the migrations; nothing to create.");
