import { randomBytes } from "node:crypto";
import { decodeProtectedHeader } from "jose";
import { runNpmCli } from "./support/cli";
import { answerCallback, createApp, exchangeCode, installPath, pressInstall } from "./support/install";
import { expect, test } from "./support/test";
import { createSubAccountUser, signIn } from "./support/world";

/**
 * `npm run cli -- signing-key:rotate` against the running production server (on PGlite the CLI
 * hands the command to the server), over real HTTP: the next token carries the new kid, tokens of
 * both keys work, and the JWKS publishes both, cacheable for five minutes.
 */

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

test("signing-key:rotate: new tokens are signed with the new key at once, old and new both work, the JWKS has both", async ({
  page,
  request,
}) => {
  const { agency, locationId, user } = await createSubAccountUser();
  const app = await createApp(agency.companyId, {
    name: `Rotation app ${randomBytes(3).toString("hex")}`,
    scopes: "locations.readonly",
  });
  await answerCallback(page);
  await signIn(page, user.email);
  await page.goto(installPath(app.clientId));
  const code = await pressInstall(page);
  // Not kept alive: the CLI below takes about the server's 5-second keep-alive, and a request on a
  // socket the server is closing just then is reset.
  const first = await exchangeCode(request, app, code, "Location", { headers: { Connection: "close" } });
  const client = { client_id: app.clientId, client_secret: app.clientSecret };

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
