import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * `.env.local` (git-ignored) holds the server secrets generated on first start; Next.js loads it
 * for the server, and scripts (CLI, migrations) load it with this. Real environment variables win.
 */
export const localEnvPath = resolve(process.cwd(), ".env.local");

export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m?.[1]) continue;
    let value = m[2] ?? "";
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    out[m[1]] = value;
  }
  return out;
}

export function loadLocalEnv(path = localEnvPath): void {
  if (!existsSync(path)) return;
  for (const [k, v] of Object.entries(parseDotenv(readFileSync(path, "utf8")))) {
    if (process.env[k] === undefined) process.env[k] = v;
  }
}

/** Makes sure SERVER_SECRET exists; returns true when it had to generate one. */
export function ensureServerSecret(path = localEnvPath): boolean {
  loadLocalEnv(path);
  if (process.env.SERVER_SECRET) return false;
  const secret = randomBytes(32).toString("base64url");
  const existing = existsSync(path) ? readFileSync(path, "utf8") : "";
  const prefix = existing && !existing.endsWith("\n") ? `${existing}\n` : existing;
  writeFileSync(
    path,
    `${prefix}# Generated on first start. Keys every token hash, encryption and session of this\n# deployment: keep it secret, and give every instance sharing one database the same value.\nSERVER_SECRET=${secret}\n`,
    { mode: 0o600 },
  );
  process.env.SERVER_SECRET = secret;
  return true;
}
