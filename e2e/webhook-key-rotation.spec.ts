import { createPublicKey, randomBytes } from "node:crypto";
import { runNpmCli } from "./support/cli";
import { createApp } from "./support/install";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * `npm run cli -- webhook-key:rotate` (ours, not in SPEC.md's table) against the running
 * production server: the JWKS publishes the old and the new key at once, the PEM of
 * x-ghl-signature stays the old one for the overlap, and the app's page shows the next PEM with
 * the moment it takes over.
 */

type Jwk = { kty: string; crv: string; x: string; kid: string };

test("webhook-key:rotate: both keys published, the PEM stays the old one, the app page announces the next", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 0 });
  const app = await createApp(agency.companyId, {
    name: `Key app ${randomBytes(3).toString("hex")}`,
    scopes: "locations.readonly",
  });
  const keys = async () => ((await (await request.get("/.well-known/webhook-keys")).json()) as { keys: Jwk[] }).keys;
  const before = await keys();
  const pem = await (await request.get("/.well-known/webhook-public-key.pem")).text();

  const { stdout } = await runNpmCli(["webhook-key:rotate"]);
  const rotation = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { kid: string; previousKid: string };
  expect(rotation).toEqual({ kid: expect.any(String), previousKid: before[0]?.kid });

  const after = await keys();
  expect(after.map((k) => k.kid)).toEqual([rotation.kid, ...before.map((k) => k.kid)]);
  expect(await (await request.get("/.well-known/webhook-public-key.pem")).text()).toBe(pem);

  const jwk = after[0] as Jwk;
  const nextPem = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" })
    .export({ format: "pem", type: "spki" })
    .toString();
  await signIn(page, agency.owner.email);
  await page.goto(`/developer/apps/${app.appId}`);
  await expect(page.getByTestId("webhook-public-key-pem")).toHaveText(pem.trim());
  await expect(page.getByTestId("webhook-next-key-notice")).toContainText(
    "x-ghl-signature is signed with the key below",
  );
  await expect(page.getByTestId("webhook-next-public-key-pem")).toHaveText(nextPem.trim());
});
