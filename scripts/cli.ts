// npm run cli -- <command> [--flag value ...]: prints one JSON object, or a message on stderr and exit 1.

import { operatorKey, runningServer } from "@/lib/cli/operator";
import { parseArgv, runCommand } from "@/lib/cli/run";
import { pgliteDataDir } from "@/lib/db/adapter";
import { disconnectDb } from "@/lib/db/client";
import { EnvError, env } from "@/lib/env";
import { loadLocalEnv } from "@/lib/local-env";
import { invalid, Refusal } from "@/lib/refusal";

async function main(): Promise<Record<string, unknown>> {
  loadLocalEnv();
  process.env.LOG_LEVEL ??= "warn";
  const { command, flags } = parseArgv(process.argv.slice(2));
  const dataDir = pgliteDataDir(env().DATABASE_URL);
  const server = dataDir ? runningServer(dataDir) : undefined;
  if (!server) return runCommand(command, flags);
  // The server holds the embedded database: hand it the command.
  const response = await fetch(`http://127.0.0.1:${server.port}/api/operator`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}` },
    body: JSON.stringify({ command: command ?? "", flags }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  // The server's refusal, worded for the operator like runCommand's own.
  if (!response.ok) throw invalid(String(body.error_description ?? `The server answered ${response.status}.`));
  return body;
}

try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await disconnectDb();
  process.exit(0);
} catch (error) {
  const message =
    error instanceof Refusal || error instanceof EnvError
      ? error.message
      : `The command failed: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message}\n`);
  await disconnectDb().catch(() => {});
  process.exit(1);
}
