import { createHash, randomBytes } from "node:crypto";
import type { Actor } from "@/lib/accounts/permissions";
import { type CreatedApp, createApp } from "@/lib/apps/registry";
import type { NewApp } from "@/lib/apps/settings";
import { type ApprovedInstall, approveInstall } from "@/lib/oauth/authorize/approve";
import type { AuthorizeParams } from "@/lib/oauth/authorize/params";
import type { InstallTarget } from "@/lib/oauth/authorize/resolve-target";
import { uniqueSuffix } from "@/lib/testing/fixtures";

/** Test helpers for the OAuth flow, made through the same lib functions the screens use. */

export const testRedirectUri = "https://app.example.test/oauth/callback";

export async function makeApp(companyId: string, overrides: Partial<NewApp> = {}): Promise<CreatedApp> {
  return createApp({
    companyId,
    name: `App ${uniqueSuffix()}`,
    redirectUris: [testRedirectUri, "http://localhost:4000/callback"],
    scopes: ["oauth.readonly", "oauth.write", "locations.readonly", "contacts.write", "users.readonly"],
    installSetting: "everyone",
    ...overrides,
  });
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizeParams(clientId: string, extra: Partial<AuthorizeParams> = {}): AuthorizeParams {
  return { response_type: "code", client_id: clientId, redirect_uri: testRedirectUri, state: "st-123", ...extra };
}

export async function install(
  actor: Actor,
  clientId: string,
  target: InstallTarget,
  extra: Partial<AuthorizeParams> = {},
  now?: Date,
): Promise<ApprovedInstall> {
  return approveInstall({ actor, params: authorizeParams(clientId, extra), target, now });
}

export function formRequest(
  path: string,
  body: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Request {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) if (v !== undefined) form.set(k, v);
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: form.toString(),
  });
}

export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`;
}

/** POST /oauth/token exchanging `code` for `created`'s tokens, the client authenticated in the form. */
export function codeExchange(created: CreatedApp, code: string, userType: "Company" | "Location"): Request {
  return formRequest("/oauth/token", {
    grant_type: "authorization_code",
    client_id: created.app.clientId,
    client_secret: created.clientSecret,
    code,
    user_type: userType,
  });
}

/** Installs `app` and exchanges the code at the token endpoint (lib level, no HTTP server). */
export async function installAndExchange(
  actor: Actor,
  created: CreatedApp,
  target: InstallTarget,
): Promise<Record<string, unknown> & { access_token: string; refresh_token: string }> {
  const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
  const { code } = await install(actor, created.app.clientId, target);
  const body = await tokenEndpoint(codeExchange(created, code, target.level === "agency" ? "Company" : "Location"));
  return body as Record<string, unknown> & { access_token: string; refresh_token: string };
}

export interface RouteResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

/** Calls a route handler export directly, as Next.js would, and reads the answer. */
export async function callRoute(
  handler: (request: Request, context?: { params?: Promise<Record<string, never>> }) => Promise<Response>,
  request: Request,
): Promise<RouteResult> {
  const response = await handler(request);
  const text = await response.text();
  let body: Record<string, unknown> = {};
  if (text) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body, text };
}
