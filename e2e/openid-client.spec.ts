import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import * as client from "openid-client";
import { runCli } from "./support/cli";
import { e2eBaseUrl } from "./support/env";
import { rememberSecret } from "./support/secrets";
import { createAgency, signIn } from "./support/world";

/**
 * An RFC-following OAuth client library (openid-client, panva's), configured only by our RFC 8414
 * metadata, runs the whole flow unchanged and sends no parameter of ours (no user_type): authorization
 * code with PKCE (S256) and state, refresh, introspection (RFC 7662) and revocation (RFC 7009).
 */

const callback = "https://rfc-client.example.test/oauth/callback";

test("openid-client runs code + PKCE, refresh, introspection and revocation from our metadata", async ({ page }) => {
  test.setTimeout(90_000);
  const agency = await createAgency({ locations: 1 });
  const app = await runCli<{ clientId: string; clientSecret: string }>("app:create", {
    company: agency.companyId,
    name: `RFC client ${randomBytes(3).toString("hex")}`,
    "redirect-uri": callback,
    scopes: "oauth.readonly oauth.write locations.readonly",
    "install-setting": "everyone",
  });

  // Discovery reads /.well-known/oauth-authorization-server (algorithm "oauth2"); this server runs
  // on http://localhost in the test, which the library refuses unless told.
  const config = await client.discovery(
    new URL(e2eBaseUrl),
    app.clientId,
    app.clientSecret,
    client.ClientSecretBasic(app.clientSecret),
    { algorithm: "oauth2", execute: [client.allowInsecureRequests] },
  );
  expect(config.serverMetadata().token_endpoint).toBe(`${e2eBaseUrl}/oauth/token`);

  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: callback,
    scope: "oauth.readonly locations.readonly",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });

  await signIn(page, agency.owner.email);
  await page.route(`${callback}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "ok" }));
  await page.goto(authorizationUrl.href);
  await page.getByRole("button", { name: "Install" }).click();
  await page.waitForURL(`${callback}?**`);
  rememberSecret(new URL(page.url()).searchParams.get("code"), "openid-client: code");

  // Only RFC 6749's parameters: user_type is optional (SPEC.md), the installation's level is used.
  const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  rememberSecret(tokens.access_token, "openid-client: access_token");
  rememberSecret(tokens.refresh_token, "openid-client: refresh_token");
  expect(tokens.token_type.toLowerCase()).toBe("bearer");
  expect(tokens.userType).toBe("Company");
  expect(tokens.scope).toBe("oauth.readonly locations.readonly");
  expect(tokens.expiresIn()).toBeGreaterThan(86_000);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  rememberSecret(refreshed.access_token, "openid-client: refreshed access_token");
  rememberSecret(refreshed.refresh_token, "openid-client: refreshed refresh_token");
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

  const active = await client.tokenIntrospection(config, refreshed.access_token);
  expect(active).toMatchObject({ active: true, client_id: app.clientId, scope: "oauth.readonly locations.readonly" });

  await client.tokenRevocation(config, refreshed.refresh_token as string, { token_type_hint: "refresh_token" });
  // Revoking the refresh token ends its family, the access token issued with it included.
  expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: false });
  await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
    error: "invalid_grant",
  });
});
