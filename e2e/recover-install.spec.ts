import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { e2eBaseUrl, e2eDir } from "./support/env";
import { answerCallback, createApp, exchangeCode, installPath, pressInstall } from "./support/install";
import { readmeBlocks } from "./support/readme";
import { rememberSecret, rememberSecretsIn } from "./support/secrets";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * README.md › "Recover an install", run as written: its shell block (a `node -e` assertion with
 * jose, then curl) and its Node block (openid-client's PrivateKeyJwt and clientCredentialsGrant),
 * against the production server, with the key made on the app's page (Generate key pair, the PEM
 * downloaded) and an installation made on the install screen whose tokens the app then "lost".
 */

const run = promisify(execFile);

const blocks = readmeBlocks("## Recover an install");
const shell = blocks.filter((b) => b.lang === "sh");
const node = blocks.filter((b) => b.lang === "js");

/** The last line of a block's output, as JSON (what the README's example prints). */
function lastJsonLine(stdout: string): Record<string, unknown> {
  rememberSecretsIn(stdout, "README block output");
  const last = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(last) as Record<string, unknown>;
}

async function runShell(code: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const { stdout } = await run("bash", ["-e", "-o", "pipefail", "-c", code], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
  });
  return lastJsonLine(stdout);
}

async function runNode(code: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  // Inside the repository, so `openid-client` and `jose` resolve as in the app's own project.
  const file = resolve(e2eDir, "recover-install.mjs");
  writeFileSync(file, code);
  try {
    const { stdout } = await run(process.execPath, [file], { cwd: process.cwd(), env: { ...process.env, ...env } });
    return lastJsonLine(stdout);
  } finally {
    rmSync(file, { force: true });
  }
}

test("README › Recover an install: a key from the app's page, then curl and openid-client as written", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  expect(shell, "README's section has one sh block").toHaveLength(1);
  expect(node, "README's section has one js block").toHaveLength(1);

  const agency = await createAgency({ locations: 1 });
  const locationId = agency.locationIds[0]!;
  const app = await createApp(agency.companyId, { scopes: "oauth.readonly oauth.write locations.readonly" });

  // Developer › Apps › the app › Keys: Generate key pair, and keep the downloaded PEM.
  await signIn(page, agency.owner.email);
  await page.goto(`/developer/apps/${app.appId}`);
  const keys = page.getByRole("region", { name: "Keys", exact: true });
  await keys.getByRole("button", { name: "Generate key pair" }).click();
  await expect(keys.getByRole("heading", { name: "Download the private key now" })).toBeVisible();
  const download = page.waitForEvent("download");
  await keys.getByRole("link", { name: "Download private key" }).click();
  const keyFile = resolve(e2eDir, `recover-install-${app.appId}.pem`);
  mkdirSync(e2eDir, { recursive: true });
  await (await download).saveAs(keyFile);
  const pem = readFileSync(keyFile, "utf8");
  rememberSecret(pem.trim(), "downloaded private key");
  expect(pem).toContain("-----BEGIN PRIVATE KEY-----");

  // Installed at agency level (the install screen preselects every sub-account); the tokens of
  // that install are then lost.
  await answerCallback(page);
  await page.goto(installPath(app.clientId));
  await exchangeCode(request, app, await pressInstall(page), "Company");

  const env = { BASE: e2eBaseUrl, CLIENT_ID: app.clientId, KEY_FILE: keyFile };
  try {
    // The shell block: a Company token for the agency.
    const company = await runShell(shell[0]!.code, { ...env, COMPANY_ID: agency.companyId });
    expect(company).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      userType: "Company",
      companyId: agency.companyId,
    });
    expect(company.refresh_token).toBeUndefined();
    expect(String(company.scope).split(" ").sort()).toEqual(["locations.readonly", "oauth.readonly", "oauth.write"]);
    const installed = await request.get(`/oauth/installedLocations?companyId=${agency.companyId}`, {
      headers: { authorization: `Bearer ${company.access_token}`, version: "2021-07-28" },
    });
    expect(installed.status()).toBe(200);

    // The Node block: a Location token for the sub-account the agency install covers.
    const location = await runNode(node[0]!.code, { ...env, LOCATION_ID: locationId });
    expect(location).toMatchObject({ userType: "Location", locationId, expires_in: 3600 });
    expect(location.refresh_token).toBeUndefined();
    const read = await request.get(`/locations/${locationId}`, {
      headers: { authorization: `Bearer ${location.access_token}`, version: "2021-07-28" },
    });
    expect(read.status()).toBe(200);

    // The key's use shows on the app's page.
    await page.goto(`/developer/apps/${app.appId}`);
    await expect(keys.getByRole("list", { name: "Keys of the app" })).toContainText("last used");

    // Uninstalled: the same block answers invalid_grant, and the tokens it gave stop working.
    await page.goto("/marketplace");
    await page.getByRole("button", { name: `Uninstall ${app.name}` }).click();
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("region", { name: `${app.name} installed` })).toHaveCount(0);
    const refused = await runShell(shell[0]!.code, { ...env, COMPANY_ID: agency.companyId });
    expect(refused).toMatchObject({ error: "invalid_grant" });
    const after = await request.get(`/locations/${locationId}`, {
      headers: { authorization: `Bearer ${location.access_token}`, version: "2021-07-28" },
    });
    expect(after.status()).toBe(401);
  } finally {
    rmSync(keyFile, { force: true });
  }
});
