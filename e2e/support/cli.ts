import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { e2eServerSecret, infoPath, type ServerInfo } from "./env";
import { rememberSecret, rememberSecretsIn, secretField } from "./secrets";

const run = promisify(execFile);

export type Flags = Record<string, string | string[] | undefined>;

/**
 * Seeds data the way an operator does: the real CLI (`npm run cli -- <command> ...`) against the
 * running server's database (on PGlite it hands the command to the server).
 */
export async function runCli<T = Record<string, unknown>>(command: string, flags: Flags = {}): Promise<T> {
  const info = JSON.parse(readFileSync(infoPath, "utf8")) as ServerInfo;
  const args = [resolve("node_modules/tsx/dist/cli.mjs"), "scripts/cli.ts", command];
  for (const [name, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      args.push(`--${name}`, v);
      if (secretField.test(name)) rememberSecret(v, `cli ${command} --${name}: password`);
    }
  }
  const { stdout } = await run(process.execPath, args, {
    env: { ...process.env, DATABASE_URL: info.databaseUrl, SERVER_SECRET: e2eServerSecret, LOG_LEVEL: "warn" },
  });
  const last = stdout.trim().split("\n").pop() ?? "{}";
  rememberSecretsIn(last, `cli ${command}`);
  return JSON.parse(last) as T;
}

/** Like runCli, but for a command expected to fail: its stderr and exit code. */
export async function runCliFailure(command: string, flags: Flags = {}): Promise<{ code: number; stderr: string }> {
  try {
    await runCli(command, flags);
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? "" };
  }
  throw new Error(`${command} was expected to fail`);
}

/** `npm run cli -- <args>` exactly as SPEC.md writes it (npm and all), for what it prints. */
export async function runNpmCli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const info = JSON.parse(readFileSync(infoPath, "utf8")) as ServerInfo;
  return run("npm", ["run", "cli", "--", ...args], {
    env: { ...process.env, DATABASE_URL: info.databaseUrl, SERVER_SECRET: e2eServerSecret, LOG_LEVEL: "warn" },
  });
}
