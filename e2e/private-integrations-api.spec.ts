import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { APIRequestContext, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { e2ePort } from "./support/env";
import { card, createOnScreen, openDetails, tokenPattern } from "./support/private-integrations";
import { readmeBlocks } from "./support/readme";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * The management API seen from the screens, and README › Rotating from a secret manager
 * run as written. A person creates the rotating job's own integration on the screen; that
 * integration creates another through the API (it appears on the screen, the Activity naming the
 * integration as the actor), rotates it later with the README's curl (the screen reads Rotating),
 * expires the old token with it, and rotates now with the README's Node.js example.
 */

test.describe.configure({ timeout: 240_000 });

const run = promisify(execFile);
const appUrl = `http://127.0.0.1:${e2ePort}`;
const version = "2021-07-28";
const rotatorName = "Secret rotator";
const actorShown = `${rotatorName} (private integration, through the API)`;

/** The README's fenced blocks under `### Rotating from a secret manager`, in order. */
const secretManagerBlocks = readmeBlocks("### Rotating from a secret manager");

/** The status GET /locations/{id} answers `token`: whether the token works there. */
async function locationStatus(request: APIRequestContext, token: string, locationId: string): Promise<number> {
  const answer = await request.get(`/locations/${locationId}`, {
    headers: { Authorization: `Bearer ${token}`, Version: version },
  });
  return answer.status();
}

/** The Activity table's row for `integration` and `what`, which must name `by`. */
async function expectActivity(page: Page, integration: string, what: string, by: string) {
  const activity = page.getByRole("region", { name: "Private integration changes, newest first" });
  const row = activity.getByRole("row").filter({ hasText: integration }).filter({ hasText: what }).first();
  await expect(row).toBeVisible();
  await expect(row.getByRole("cell").last()).toHaveText(by);
}

test("an integration managed through the API, seen on the screen; the README's rotation examples work", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 1, labs: true });
  const [locationId] = agency.locationIds as [string];
  const secrets = mkdtempSync(join(tmpdir(), "rotate-"));
  const secretFile = join(secrets, "integration-token");

  try {
    // The rotating job's own integration, made by a person on the screen. It never expires: the
    // integrations it makes have no expiry, and it may act only on ones that expire no later.
    await signIn(page, agency.owner.email);
    const rotator = await createOnScreen(
      page,
      rotatorName,
      ["private-integrations.write", "locations.readonly"],
      undefined,
      { noExpiration: true },
    );
    const auth = { Authorization: `Bearer ${rotator}`, Version: version };

    // It creates another integration through the API: the token is in the answer, once.
    const created = await request.post("/private-integrations", {
      headers: auth,
      data: { name: "CRM sync", description: "Made by the rotating job", scopes: ["locations.readonly"] },
    });
    expect(created.status()).toBe(201);
    const { privateIntegration, token: first } = (await created.json()) as {
      privateIntegration: { id: string; name: string; status: string; tokenHint: string; locationId: null };
      token: string;
    };
    expect(first).toMatch(tokenPattern);
    expect(privateIntegration).toMatchObject({ name: "CRM sync", status: "active", tokenHint: first.slice(-4) });
    expect(await locationStatus(request, first, locationId)).toBe(200);

    await page.reload();
    const crm = card(page, "CRM sync");
    await expect(crm).toContainText("Active");
    await expectActivity(page, "CRM sync", "Created", actorShown);
    await expect(await openDetails(crm, "CRM sync")).toContainText(`by ${actorShown}`);
    await expectAccessible(page, "private integrations: created through the API");

    // README › curl, first command: rotate later; both tokens work and the screen reads Rotating.
    const curlBlock = secretManagerBlocks.find((block) => block.lang === "sh")?.code;
    const [rotateLater, expireNow] = (curlBlock ?? "").split(/^# … once every consumer reads the new token:$/m);
    expect(rotateLater).toContain("/rotate");
    expect(expireNow).toContain("/expire-now");
    const env = {
      ...process.env,
      APP_URL: appUrl,
      ROTATOR_TOKEN: rotator,
      INTEGRATION_ID: privateIntegration.id,
      SECRET_FILE: secretFile,
    };
    await run("bash", ["-euo", "pipefail", "-c", rotateLater ?? ""], { env });
    const second = readFileSync(secretFile, "utf8").trim();
    rememberSecret(second, "README curl: rotated token");
    expect(second).toMatch(tokenPattern);
    expect(await locationStatus(request, first, locationId)).toBe(200);
    expect(await locationStatus(request, second, locationId)).toBe(200);
    await page.reload();
    await expect(crm.getByRole("cell").filter({ hasText: /^Rotating$/ })).toBeVisible();
    await expectActivity(page, "CRM sync", "Rotated, old token expires later", actorShown);
    await expectAccessible(page, "private integrations: rotating through the API");

    // README › curl, second command: the old token stops working.
    await run("bash", ["-euo", "pipefail", "-c", expireNow ?? ""], { env });
    expect(await locationStatus(request, first, locationId)).toBe(401);
    expect(await locationStatus(request, second, locationId)).toBe(200);

    // README › Node.js: rotate now, the new token written to the secret file (mode 0600).
    const nodeBlock = secretManagerBlocks.find((block) => block.lang === "js")?.code;
    const script = join(secrets, "rotate.mjs");
    writeFileSync(script, nodeBlock ?? "");
    const { stdout } = await run(process.execPath, [script], { env });
    expect(stdout).toContain("Rotated CRM sync; new token ends in");
    const third = readFileSync(secretFile, "utf8").trim();
    rememberSecret(third, "README node: rotated token");
    expect(third).toMatch(tokenPattern);
    expect(third).not.toBe(second);
    expect(await locationStatus(request, second, locationId)).toBe(401);
    expect(await locationStatus(request, third, locationId)).toBe(200);

    await page.reload();
    await expect(crm.getByRole("cell").filter({ hasText: /^Active$/ })).toBeVisible();
    await expectActivity(page, "CRM sync", "Rotated, old token expired at once", actorShown);
    await expect(page.getByText(third)).toHaveCount(0);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
});
