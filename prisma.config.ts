import { defineConfig } from "prisma/config";

// The app opens the database through driver adapters (lib/db/client.ts) and applies migrations
// with the WASM schema engine (lib/db/migrations.ts); this file only serves `prisma generate`.
export default defineConfig({
  schema: "prisma/schema",
  migrations: { path: "prisma/migrations" },
});
