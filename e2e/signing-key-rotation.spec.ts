import { randomBytes } from "node:crypto";
import { decodeProtectedHeader } from "jose";
import { runCli, runNpmCli } from "./support/cli";
import { expect, test } from "./support/test";
import { createAgency, createUser, signIn } from "./support/world";

/**
 * `npm run cli -- signing-key:rotate` against the running production server (on PGlite the CLI
 * hands the command to the server), over real HTTP: the next token carries the new kid, tokens of
 * both keys work, and the JWKS publishes both, cacheable for five minutes.
 */

const callback = "https://app.example.test/oauth/callback";
const kidOf = (token: string) => decodeProtectedHeader(token).kid;

test("signing-key:rotate: new tokens are signed with the new key at once, old and new both work, the JWKS has both", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 1 });
  const locationId = agency.locationIds[0]!;
  const user = await createUser(agency.companyId, "account_user", { locations: [locationId] });
  const app = await runCli<{ clientId: string; clientSecret: string }>("app:create", {
    company: agency.companyId,
    name: `Rotation app ${randomBytes(3).toString("hex")}`,
    "redirect-uri": callback,
    scopes: "locations.readonly",
    "install-setting": "everyone",
  });
  await page.route(`${callback}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "ok" }));
  await signIn(page, user.email);
  const query = new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: callback });
  await page.goto(`/oauth/chooselocation?${query}`);
  await page.getByRole("button", { name: "Install" }).click();
  await page.waitForURL(`${callback}?**`);
  const code = new URL(page.url()).searchParams.get("code")!;
  const client = { client_id: app.clientId, client_secret: app.clientSecret };
  // Not kept alive: the CLI below takes about the server's 5-second keep-alive, and a request on a
  // socket the server is closing just then is reset.
  const exchanged = await request.post("/oauth/token", {
    headers: { Connection: "close" },
    form: { ...client, grant_type: "authorization_code", code, user_type: "Location" },
  });
  expect(exchanged.status()).toBe(200);
  const first = (await exchanged.json()) as { access_token: string; refresh_token: string };

  const { stdout } = await runNpmCli(["signing-key:rotate"]);
  const rotation = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { kid: string; previousKid: string };
  expect(rotation).toEqual({ kid: expect.any(String), previousKid: kidOf(first.access_token) });

  const refreshed = await request.post("/oauth/token", {
    form: { ...client, grant_type: "refresh_token", refresh_token: first.refresh_token },
  });
  expect(refreshed.status()).toBe(200);
  const second = ((await refreshed.json()) as { access_token: string }).access_token;
  expect(kidOf(second)).toBe(rotation.kid);

  for (const token of [first.access_token, second]) {
    const location = await request.get(`/locations/${locationId}`, {
      headers: { Version: "2021-07-28", Authorization: `Bearer ${token}` },
    });
    expect(location.status()).toBe(200);
  }
  const jwks = await request.get("/.well-known/jwks.json");
  expect(jwks.headers()["cache-control"]).toBe("public, max-age=300");
  const kids = ((await jwks.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
  expect(kids).toEqual(expect.arrayContaining([rotation.previousKid, rotation.kid]));
});
