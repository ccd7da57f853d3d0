import { z } from "zod";
import { invalid, Refusal } from "@/lib/refusal";
import { commands } from "./registry";

export type RawFlags = Record<string, string | true | (string | true)[]>;

/** `--a 1 --b --c x --c y` → { a: "1", b: true, c: ["x", "y"] }. */
export function parseArgv(argv: string[]): { command?: string; flags: RawFlags } {
  const [command, ...rest] = argv;
  const flags: RawFlags = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? "";
    if (!arg.startsWith("--")) throw invalid(`Unexpected argument "${arg}". Flags look like --name value.`);
    let name = arg.slice(2);
    let value: string | true;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else if (i + 1 < rest.length && !(rest[i + 1] ?? "").startsWith("--")) {
      value = rest[++i] ?? "";
    } else {
      value = true;
    }
    const existing = flags[name];
    flags[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return { command, flags };
}

export function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(18)} ${c.description}`);
  return `Usage: npm run cli -- <command> [--flag value ...]\n\nCommands:\n${lines.join("\n")}`;
}

/**
 * Runs one command with raw flags. Every refusal is an `invalid` Refusal with a sentence for
 * the operator: the flags are the CLI's only input, so a missing agency is a wrong --company.
 */
export async function runCommand(name: string | undefined, raw: RawFlags): Promise<Record<string, unknown>> {
  if (!name || name === "help" || name === "--help") throw invalid(usage());
  const command = commands[name];
  if (!command) throw invalid(`Unknown command "${name}".\n\n${usage()}`);
  const flags: Record<string, unknown> = { ...raw };
  for (const key of command.repeatable ?? []) {
    const v = flags[key];
    if (v !== undefined && !Array.isArray(v)) flags[key] = [v];
  }
  for (const [key, v] of Object.entries(flags)) {
    if (Array.isArray(v) && !command.repeatable?.includes(key)) {
      throw invalid(`--${key} may be given only once.`);
    }
  }
  const parsed = command.flags.safeParse(flags);
  if (!parsed.success) throw invalid(describeFlagIssue(parsed.error));
  try {
    return await command.run(parsed.data);
  } catch (error) {
    if (error instanceof Refusal) throw invalid(error.message, error.field);
    if (error instanceof z.ZodError) throw invalid(describeFlagIssue(error));
    throw error;
  }
}

function describeFlagIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "The flags are invalid.";
  if (issue.code === "unrecognized_keys") return `Unknown flag ${issue.keys.map((k) => `--${k}`).join(", ")}.`;
  const flag = issue.path[0] !== undefined ? `--${String(issue.path[0])}` : "flags";
  if (issue.code === "invalid_type" && issue.input === undefined) return `${flag} is required.`;
  return `${flag}: ${issue.message}`;
}
