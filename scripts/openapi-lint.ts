// npm run lint:openapi: writes the OpenAPI document the server serves at /openapi.json to
// test-results/openapi.json and lints it with Redocly CLI (rules in redocly.yaml), as app
// developers' tools read it. Exits with Redocly's status.
import { spawnSync } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { documentedRoutes } from "@/app/route-table";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";

// The document names the deployment's APP_URL as its server; lint it as a deployment serves it
// (Redocly warns on a localhost server, which is what a development machine has).
process.env.APP_URL ??= "https://tokens.agency.test";

const out = resolve("test-results/openapi.json");
mkdirSync(resolve("test-results"), { recursive: true });
// Written beside it and renamed: another npm test linting at the same moment never reads half a file.
writeFileSync(`${out}.${process.pid}`, `${JSON.stringify(buildOpenApiDocument(documentedRoutes), null, 2)}\n`);
renameSync(`${out}.${process.pid}`, out);
const result = spawnSync(resolve("node_modules/.bin/redocly"), ["lint", "--config", "redocly.yaml", out], {
  stdio: "inherit",
  // Redocly CLI prints a Node.js 20 end-of-life banner and asks its telemetry host otherwise.
  env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_TELEMETRY: "off" },
});
process.exit(result.status ?? 1);
