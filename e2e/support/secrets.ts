import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { e2eDir } from "./env";

/**
 * Secrets at rest: every secret the end-to-end suite sees or types is remembered here
 * (client secrets, authorization codes, access and refresh tokens, pit- tokens, passwords), and
 * after the suite the whole database and the server log are searched for them.
 */
export const secretsPath = resolve(e2eDir, "secrets.txt");

/** Field names whose values are secrets, in forms, JSON bodies and CLI output. */
export const secretField =
  /^(password|client_secret|clientSecret|webhookSecret|code|access_token|refresh_token|token)$/;
export const pitPattern = /pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export function rememberSecret(value: string | null | undefined, label = "secret"): void {
  if (!value || value.length < 8) return;
  mkdirSync(e2eDir, { recursive: true });
  appendFileSync(secretsPath, `${JSON.stringify({ label, value })}\n`);
}

/** The secrets inside a piece of text: pit- tokens anywhere, secret fields of a JSON object. */
export function rememberSecretsIn(text: string, label: string): void {
  for (const match of text.matchAll(pitPattern)) rememberSecret(match[0], `${label}: pit- token`);
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return;
  try {
    const body = JSON.parse(trimmed) as Record<string, unknown>;
    for (const [key, value] of Object.entries(body))
      if (secretField.test(key) && typeof value === "string") rememberSecret(value, `${label}: ${key}`);
  } catch {
    // not JSON
  }
}

/** Secret fields of a form or JSON request body, and of a URL's query (e.g. ?code=…). */
export function rememberSecretsInRequest(url: string, body: string | null | undefined, label: string): void {
  try {
    for (const [key, value] of new URL(url).searchParams)
      if (secretField.test(key)) rememberSecret(value, `${label}: ?${key}`);
  } catch {
    // not a URL
  }
  if (!body) return;
  for (const match of body.matchAll(pitPattern)) rememberSecret(match[0], `${label}: pit- token`);
  // multipart (server actions): name="password"\r\n\r\nvalue
  for (const match of body.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g))
    if (secretField.test(match[1]!.replace(/^\d+_/, ""))) rememberSecret(match[2], `${label}: ${match[1]}`);
  if (!body.includes("\r\n")) {
    for (const [key, value] of new URLSearchParams(body))
      if (secretField.test(key)) rememberSecret(value, `${label}: ${key}`);
    rememberSecretsIn(body, label);
  }
}

export interface RememberedSecret {
  label: string;
  value: string;
}

export function rememberedSecrets(): RememberedSecret[] {
  if (!existsSync(secretsPath)) return [];
  const seen = new Map<string, RememberedSecret>();
  for (const line of readFileSync(secretsPath, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const secret = JSON.parse(line) as RememberedSecret;
    if (!seen.has(secret.value)) seen.set(secret.value, secret);
  }
  return [...seen.values()];
}

/**
 * What to search for: the secret itself and, for random tokens longer than 16 characters, their
 * last characters (a stored "hint" must stay shorter). Eight characters, or twelve for hex-only
 * tails: 16^8 is small enough that a megabyte of stored hashes would match by chance now and then.
 * Passwords are words people chose, so only the whole of one counts.
 */
export function needles(secret: string, label = ""): string[] {
  if (secret.length <= 16 || /password|server secret/.test(label)) return [secret];
  const hex = /^[0-9a-f]+$/i;
  const tail = hex.test(secret.slice(-12)) ? secret.slice(-12) : secret.slice(-8);
  return [secret, tail];
}

export interface Finding {
  secret: RememberedSecret;
  needle: string;
  where: string;
}

/** Every remembered secret (or tail) found in `haystack`. */
export function findSecrets(secrets: RememberedSecret[], haystack: string, where: string): Finding[] {
  const found: Finding[] = [];
  for (const secret of secrets) {
    for (const needle of needles(secret.value, secret.label)) {
      if (haystack.includes(needle)) {
        found.push({ secret, needle, where });
        break;
      }
    }
  }
  return found;
}

/** The bytes of every file under `dir`, as latin-1 text (Postgres stores short text uncompressed). */
export function readTree(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const visit = (p: string) => {
    if (statSync(p).isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else out.push({ path: p, text: readFileSync(p).toString("latin1") });
  };
  if (existsSync(dir)) visit(dir);
  return out;
}
