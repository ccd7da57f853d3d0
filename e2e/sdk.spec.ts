import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HighLevel, type ISessionData, UserType } from "@gohighlevel/api-client";
import { expect, type Page, test } from "@playwright/test";
import { runCli } from "./support/cli";
import { e2eBaseUrl } from "./support/env";
import { rememberSecret } from "./support/secrets";
import { createAgency, signIn } from "./support/world";

/**
 * The platform's official Node SDK (`@gohighlevel/api-client`), used as an app developer uses it,
 * pointed at this server by its base URL alone: the code exchange, an INSTALL webhook through the
 * SDK's own middleware (app id from client_id, `x-ghl-signature` against our PEM), which fetches
 * and stores the sub-account's token, an API call with that token, and a refresh.
 */

const callback = "https://sdk-app.example.test/oauth/callback";

// The SDK's one setting of where the platform is (a static of the client class).
(HighLevel as unknown as { BASE_URL: string }).BASE_URL = e2eBaseUrl;

interface MiddlewareRequest {
  method?: string;
  url?: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  rawBody: Buffer;
  isSignatureValid?: boolean;
  skippedSignatureVerification?: boolean;
  installTokenError?: unknown;
}

/** The app's webhook endpoint: a plain node:http server handing each delivery to the SDK middleware. */
async function startSdkReceiver(
  sdk: () => HighLevel,
  ready: Promise<void>,
): Promise<{ url: string; handled: MiddlewareRequest[]; server: Server }> {
  const handled: MiddlewareRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const body = Buffer.concat(chunks);
      const req: MiddlewareRequest = {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        rawBody: body,
      };
      // An app stores its agency token when the code comes back; the INSTALL event may overtake it.
      await ready;
      await sdk().webhooks.subscribe()(req as never, {} as never, () => undefined);
      handled.push(req);
      response.statusCode = 200;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, handled, server };
}

async function installOnAllSubAccounts(page: Page, clientId: string): Promise<string> {
  await page.route(`${callback}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "ok" }));
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: callback,
    state: "sdk",
  });
  await page.goto(`/oauth/chooselocation?${query}`);
  await page.getByRole("button", { name: "Install" }).click();
  await page.waitForURL(`${callback}?**`);
  const code = new URL(page.url()).searchParams.get("code");
  expect(code).toBeTruthy();
  rememberSecret(code, "sdk: code");
  return code as string;
}

test("the platform's Node SDK works against this server unchanged", async ({ page, request }) => {
  test.setTimeout(120_000);
  const agency = await createAgency({ locations: 1 });
  const locationId = agency.locationIds[0] as string;

  let companyTokenStored: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    companyTokenStored = resolve;
  });

  const publicKey = await (await request.get("/.well-known/webhook-public-key.pem")).text();
  expect(publicKey).toContain("-----BEGIN PUBLIC KEY-----");

  let ghl: HighLevel | undefined;
  // The app's webhook URL must exist before the app does; the SDK client is made once the app is.
  const receiver = await startSdkReceiver(() => ghl as HighLevel, ready);
  try {
    const app = await runCli<{ appId: string; clientId: string; clientSecret: string; webhookSecret: string }>(
      "app:create",
      {
        company: agency.companyId,
        name: "SDK app",
        "redirect-uri": callback,
        scopes: "oauth.readonly oauth.write locations.readonly",
        "install-setting": "everyone",
        "webhook-url": receiver.url,
      },
    );
    expect(app.clientId.split("-")[0]).toBe(app.appId);
    rememberSecret(app.webhookSecret, "sdk: webhookSecret");
    ghl = new HighLevel({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      webhookPublicKey: publicKey,
      logLevel: "error",
    });

    await signIn(page, agency.owner.email);
    const code = await installOnAllSubAccounts(page, app.clientId);

    // 1. The code exchange, as the SDK's docs show it.
    const company = (await ghl.oauth.getAccessToken({
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: "authorization_code",
      code,
      user_type: UserType.Company,
    })) as ISessionData;
    rememberSecret(company.access_token, "sdk: access_token");
    rememberSecret(company.refresh_token, "sdk: refresh_token");
    expect(company).toMatchObject({ userType: "Company", companyId: agency.companyId, token_type: "Bearer" });
    await ghl.getSessionStorage().setSession(agency.companyId, company);
    companyTokenStored();

    // 2. The INSTALL event through the SDK's middleware: signature accepted, location token stored.
    await expect.poll(() => receiver.handled.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const install = receiver.handled[0] as MiddlewareRequest;
    expect(install.skippedSignatureVerification).toBe(false);
    expect(install.isSignatureValid).toBe(true);
    expect(install.installTokenError).toBeUndefined();
    const location = await ghl.getSessionStorage().getSession(locationId);
    expect(location).toMatchObject({ userType: "Location", locationId, companyId: agency.companyId });
    rememberSecret(location?.access_token, "sdk: location access_token");
    rememberSecret(location?.refresh_token, "sdk: location refresh_token");

    // 3. An API call with the token the middleware stored, resolved by the SDK from the location id.
    const read = (await ghl.locations.getLocation({ locationId })) as { location: { id: string } };
    expect(read.location.id).toBe(locationId);

    // 4. A refresh of the agency token, as the SDK does it before the token expires.
    const refreshed = (await ghl.oauth.refreshToken(
      company.refresh_token as string,
      app.clientId,
      app.clientSecret,
      "refresh_token",
      UserType.Company,
    )) as ISessionData;
    rememberSecret(refreshed.access_token, "sdk: refreshed access_token");
    rememberSecret(refreshed.refresh_token, "sdk: refreshed refresh_token");
    expect(refreshed.refresh_token).not.toBe(company.refresh_token);
    expect(refreshed.userType).toBe("Company");

    // 5. The location token again, fetched by the SDK's own call with the refreshed agency token.
    await ghl.getSessionStorage().setSession(agency.companyId, refreshed);
    const again = (await ghl.oauth.getLocationAccessToken({ companyId: agency.companyId, locationId })) as ISessionData;
    rememberSecret(again.access_token, "sdk: locationToken access_token");
    rememberSecret(again.refresh_token, "sdk: locationToken refresh_token");
    expect(again).toMatchObject({ userType: "Location", locationId });
  } finally {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  }
});
