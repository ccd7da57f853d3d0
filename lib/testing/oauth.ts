import { createHash, randomBytes } from "node:crypto";
import { beforeAll } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { type CreatedApp, createApp } from "@/lib/apps/registry";
import type { NewApp } from "@/lib/apps/settings";
import { type ApprovedInstall, approveInstall } from "@/lib/oauth/authorize/approve";
import type { AuthorizeParams } from "@/lib/oauth/authorize/params";
import type { InstallTarget } from "@/lib/oauth/authorize/resolve-target";
import { type ApiClient, formBody } from "@/lib/testing/api-client";
import { makeAgency, makeUser, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";

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
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: formBody(body),
  });
}

/** The app's client credentials as form fields (client_secret_post). */
export const clientForm = (client: CreatedApp) => ({
  client_id: client.app.clientId,
  client_secret: client.clientSecret,
});

/** A token request's form exchanging `code` (RFC 6749 §4.1.3). */
export const codeGrant = (client: CreatedApp, code: string, userType?: "Company" | "Location") => ({
  grant_type: "authorization_code",
  ...clientForm(client),
  code,
  user_type: userType,
});

/** A token request's form refreshing `refreshToken` (RFC 6749 §6). */
export const refreshGrant = (client: CreatedApp, refreshToken: string) => ({
  grant_type: "refresh_token",
  ...clientForm(client),
  refresh_token: refreshToken,
});

type FormFields = Record<string, string | undefined>;

/** POST /oauth/token through the route, exchanging `code` for a Company token; `extra` adds or overrides fields. */
export const postCodeGrant = (api: ApiClient, client: CreatedApp, code: string, extra: FormFields = {}) =>
  api.post("/oauth/token", { form: { ...codeGrant(client, code, "Company"), ...extra } });

/** POST /oauth/token through the route, refreshing `refreshToken`; `extra` adds or overrides fields. */
export const postRefreshGrant = (api: ApiClient, client: CreatedApp, refreshToken: string, extra: FormFields = {}) =>
  api.post("/oauth/token", { form: { ...refreshGrant(client, refreshToken), ...extra } });

/** POST /oauth/token exchanging `code` for `created`'s tokens, the client authenticated in the form. */
export function codeExchange(created: CreatedApp, code: string, userType: "Company" | "Location"): Request {
  return formRequest("/oauth/token", codeGrant(created, code, userType));
}

/** The token endpoint's answer to a grant (RFC 6749 §5.1), read loosely past the fields tests use. */
export type TokenAnswer = Record<string, unknown> & { access_token: string; refresh_token: string; scope: string };

/** `code` exchanged for `created`'s tokens at the token endpoint (lib level, no HTTP server). */
export async function redeemCode(
  created: CreatedApp,
  code: string,
  userType: "Company" | "Location",
  now?: Date,
): Promise<TokenAnswer> {
  const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
  return (await tokenEndpoint(codeExchange(created, code, userType), now)) as TokenAnswer;
}

/** `refreshToken` refreshed at the token endpoint (lib level, no HTTP server). */
export async function redeemRefreshToken(created: CreatedApp, refreshToken: string, now?: Date): Promise<TokenAnswer> {
  const { tokenEndpoint } = await import("@/lib/oauth/token-endpoint");
  return (await tokenEndpoint(formRequest("/oauth/token", refreshGrant(created, refreshToken)), now)) as TokenAnswer;
}

/** Installs `app` and exchanges the code at the token endpoint (lib level, no HTTP server). */
export async function installAndExchange(
  actor: Actor,
  created: CreatedApp,
  target: InstallTarget,
): Promise<TokenAnswer> {
  const { code } = await install(actor, created.app.clientId, target);
  return redeemCode(created, code, target.level === "agency" ? "Company" : "Location");
}

export interface AgencyWithApp {
  agency: TestAgency;
  app: CreatedApp;
  /** The app's Company token and its refresh token, installed at agency level. */
  companyToken: string;
  refreshToken: string;
}

/**
 * An agency of `locations` sub-accounts with an app of its own installed at agency level on the
 * ones at `installedOn` (all of them by default), and the Company token of that install.
 */
export async function agencyWithApp(locations: number, installedOn?: number[]): Promise<AgencyWithApp> {
  const agency = await makeAgency({ locations });
  const app = await makeApp(agency.company.id);
  const locationIds = (installedOn ?? agency.locations.map((_, i) => i)).map((i) => agency.locations[i]!.id);
  const tokens = await installAndExchange(agency.owner, app, { level: "agency", locationIds });
  return { agency, app, companyToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** agencyWithApp's, made before the tests of the file (or describe block) that calls this: read it in tests. */
export function withAgencyApp(locations: number, installedOn?: number[]): AgencyWithApp {
  const made = {} as AgencyWithApp;
  beforeAll(async () => {
    Object.assign(made, await agencyWithApp(locations, installedOn));
  });
  return made;
}

/** An agency of `locations` sub-accounts, a user of its first sub-account only, and an app of its own (not installed). */
export async function agencyUserAndApp(
  locations: number,
): Promise<{ agency: TestAgency; subUser: Actor; app: CreatedApp }> {
  const agency = await makeAgency({ locations });
  const subUser = await makeUser(agency.company.id, "account_user", { locationIds: [agency.locations[0]!.id] });
  return { agency, subUser, app: await makeApp(agency.company.id) };
}
