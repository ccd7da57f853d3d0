import { randomBytes } from "node:crypto";
import { type APIRequestContext, type APIResponse, expect, type Page } from "@playwright/test";
import { runCli } from "./cli";

/**
 * Installing an app the way a person does (the install screen, then the code at /oauth/token), for
 * the specs that need an installation or its tokens. No real app listens at the redirect URI: the
 * browser's request to it is answered in place.
 */

/** The redirect URI the specs' apps register. */
export const callback = "https://app.example.test/oauth/callback";

export interface E2eApp {
  appId: string;
  versionId: string;
  clientId: string;
  clientSecret: string;
  webhookSecret?: string;
  name: string;
}

/** A marketplace app of the agency, through the operator CLI; a random name unless one is given. */
export async function createApp(
  companyId: string,
  options: { scopes: string; installSetting?: "everyone" | "agency_only"; webhookUrl?: string; name?: string },
): Promise<E2eApp> {
  const name = options.name ?? `App ${randomBytes(3).toString("hex")}`;
  const app = await runCli<Omit<E2eApp, "name">>("app:create", {
    company: companyId,
    name,
    "redirect-uri": callback,
    scopes: options.scopes,
    "install-setting": options.installSetting ?? "everyone",
    "webhook-url": options.webhookUrl,
  });
  return { ...app, name };
}

/** The install screen's address for a client (what the marketplace's install link opens). */
export function installPath(clientId: string, state = "s", redirectUri = callback): string {
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, state });
  return `/oauth/chooselocation?${query}`;
}

/** Answers the browser's visit to the redirect URI, so the URL (code, state, error) can be read. */
export async function answerCallback(page: Page, body = "ok"): Promise<void> {
  await page.route(`${callback}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body }));
}

/** Presses Install on the open install screen; the code the redirect carries. */
export async function pressInstall(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Install" }).click();
  await page.waitForURL(`${callback}?**`);
  return new URL(page.url()).searchParams.get("code")!;
}

/** The authorization_code grant as the app sends it, answer unread (for specs that check a refusal). */
export function postCode(
  request: APIRequestContext,
  app: Pick<E2eApp, "clientId" | "clientSecret">,
  code: string,
  userType: "Company" | "Location",
  options: { path?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<APIResponse> {
  return request.post(options.path ?? "/oauth/token", {
    headers: options.headers,
    form: {
      grant_type: "authorization_code",
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code,
      user_type: userType,
      ...options.form,
    },
  });
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  [field: string]: unknown;
}

/** The authorization_code grant, which must succeed: the token response. */
export async function exchangeCode(
  request: APIRequestContext,
  app: Pick<E2eApp, "clientId" | "clientSecret">,
  code: string,
  userType: "Company" | "Location",
  options: { headers?: Record<string, string> } = {},
): Promise<IssuedTokens> {
  const res = await postCode(request, app, code, userType, options);
  expect(res.status()).toBe(200);
  return (await res.json()) as IssuedTokens;
}

/**
 * The signed-in person installs `app` with what the install screen preselects (an agency installer:
 * all sub-accounts; a sub-account user: their first one) and the code is exchanged.
 */
export async function installApp(
  page: Page,
  request: APIRequestContext,
  app: Pick<E2eApp, "clientId" | "clientSecret">,
  userType: "Company" | "Location",
): Promise<IssuedTokens> {
  await page.goto(installPath(app.clientId));
  return exchangeCode(request, app, await pressInstall(page), userType);
}
