import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { operatorKey } from "@/lib/cli/operator";
import { e2ePort, e2eServerSecret, infoPath, type ServerInfo } from "./env";
import { randomLoopback, send } from "./http";
import { rememberSecret, rememberSecretsIn, secretField } from "./secrets";

const run = promisify(execFile);

export type Flags = Record<string, string | string[] | undefined>;

/**
 * Seeds data with the operator's commands, through the running server's POST /api/operator: the
 * endpoint the real CLI hands its command to while the server holds the embedded database
 * (lib/cli, scripts/cli.ts). One HTTP call instead of a CLI process (tsx and Prisma start-up,
 * 1 to 3 seconds each on these machines) for every agency, sub-account and user. The specs about
 * the CLI itself run the real one: runCliProcess, runCliFailure, runNpmCli.
 */
export async function runCli<T = Record<string, unknown>>(command: string, flags: Flags = {}): Promise<T> {
  const body = JSON.stringify({ command, flags: operatorFlags(command, flags) });
  for (;;) {
    const answer = await send(`http://127.0.0.1:${e2ePort}/api/operator`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey(e2eServerSecret)}` },
      body,
      localAddress: seederAddress,
    });
    // The endpoint takes 60 calls a minute from one client (lib/cli/operator.ts): wait for the next minute.
    if (answer.status === 429) {
      await new Promise((r) => setTimeout(r, Number(answer.headers["retry-after"] ?? 1) * 1000));
      continue;
    }
    if (answer.status !== 200) throw new Error(`${command} answered ${answer.status}: ${answer.text}`);
    rememberSecretsIn(answer.text, `cli ${command}`);
    return JSON.parse(answer.text) as T;
  }
}

/**
 * The seeding's own loopback address (one per worker process): its calls count against its own
 * limit of operator calls, so the real CLI (127.0.0.1) in the specs about it is never the one refused.
 */
const seederAddress = randomLoopback();

/** The flags as the CLI's argv parser gives them to the endpoint; secret ones remembered for the scan. */
function operatorFlags(command: string, flags: Flags): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(flags)) {
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    for (const v of values) if (secretField.test(name)) rememberSecret(v, `cli ${command} --${name}: password`);
    // `--location a` is one string, `--location a --location b` a list (lib/cli/run.ts parseArgv).
    if (values.length) out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/** The real CLI (`tsx scripts/cli.ts <command> ...`) against the running server's database; its last JSON line. */
export async function runCliProcess<T = Record<string, unknown>>(command: string, flags: Flags = {}): Promise<T> {
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

/** Like runCliProcess, but for a command expected to fail: its stderr and exit code. */
export async function runCliFailure(command: string, flags: Flags = {}): Promise<{ code: number; stderr: string }> {
  try {
    await runCliProcess(command, flags);
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
