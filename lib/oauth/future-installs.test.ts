// Over 250 lines on purpose: SPEC.md's install to future sub-accounts, the installs that get them
// and those that do not, over shared install helpers.
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { runCommand } from "@/lib/cli/run";
import { db } from "@/lib/db/client";
import { createLocation } from "@/lib/provisioning/create-location";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp, postCodeGrant, refreshGrant } from "@/lib/testing/oauth";
import { installChoiceFor } from "./authorize/install-choice";
import type { InstallTarget } from "./authorize/resolve-target";
import { installAppsOnNewSubAccount } from "./future-installs";
import { uninstallApp } from "./uninstall";

/**
 * SPEC.md "Install to future sub-accounts", through the HTTP handlers: the token response's
 * fields, then a sub-account created later (CLI or lib) is installed at once, listed, exchangeable
 * for a Location token that works, and announced by exactly one INSTALL event.
 */

const api = apiClient(apiRoutes);
const hooks = { webhookUrl: "https://hooks.example.test/in" };

async function installAgency(
  agency: TestAgency,
  app: CreatedApp,
  target: Omit<InstallTarget & { level: "agency" }, "level">,
) {
  const { code, installationId } = await install(agency.owner, app.app.clientId, { level: "agency", ...target });
  const token = await postCodeGrant(api, app, code);
  expect(token.status).toBe(200);
  return { installationId, token: token.body as Record<string, unknown> & { access_token: string } };
}

const installedLocations = (agency: TestAgency, companyToken: string) =>
  api.get("/oauth/installedLocations", { query: { companyId: agency.company.id }, token: companyToken });

/** POST /oauth/locationToken for `locationId` with the agency's Company token. */
const exchangeForLocation = (agency: TestAgency, companyToken: string, locationId: string) =>
  api.post("/oauth/locationToken", { form: { companyId: agency.company.id, locationId }, token: companyToken });

async function installEventsFor(appId: string, locationId: string) {
  const rows = await db().webhookEvent.findMany({ where: { appId, type: "INSTALL" } });
  return rows.filter((row) => (row.payload as { locationId?: string }).locationId === locationId);
}

async function joined(installationId: string, locationId: string) {
  return db().installationLocation.count({ where: { installationId, locationId } });
}

describe("an agency install that chose all sub-accounts and sub-accounts created later", () => {
  let agency: TestAgency;
  let app: CreatedApp;
  let installationId: string;
  let companyToken: string;

  beforeAll(async () => {
    agency = await makeAgency({ locations: 2 });
    app = await makeApp(agency.company.id, hooks);
    const installed = await installAgency(agency, app, {
      locationIds: [],
      allLocations: true,
      installToFutureLocations: true,
    });
    installationId = installed.installationId;
    companyToken = installed.token.access_token;
    expect(installed.token).toMatchObject({ approveAllLocations: true, installToFutureLocations: true });
    expect([...(installed.token.approvedLocations as string[])].sort()).toEqual(
      agency.locations.map((l) => l.id).sort(),
    );
  });

  it("installs the app on a sub-account created through the CLI: listed, Location token works, one INSTALL event", async () => {
    const { id } = (await runCommand("location:create", { company: agency.company.id, name: "Opened later" })) as {
      id: string;
    };
    expect(await joined(installationId, id)).toBe(1);

    const listed = await installedLocations(agency, companyToken);
    expect(listed.status).toBe(200);
    expect((listed.body.locations as { id: string }[]).map((l) => l.id)).toContain(id);

    const exchanged = await exchangeForLocation(agency, companyToken, id);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ userType: "Location", locationId: id });
    const read = await api.get(`/locations/${id}`, { token: exchanged.body.access_token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ location: { id, companyId: agency.company.id, name: "Opened later" } });

    const events = await installEventsFor(app.app.id, id);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      type: "INSTALL",
      appId: app.app.id,
      versionId: app.app.versionId,
      installType: "Location",
      locationId: id,
      companyId: agency.company.id,
      userId: agency.owner.id,
      companyName: agency.company.name,
      webhookId: events[0]!.id,
    });

    // The app can also find it among its missed events (listed once older transactions have ended).
    const missed = () =>
      api.get("/webhooks/events?limit=500", {
        basic: { id: app.app.clientId, secret: app.clientSecret },
        version: null,
      });
    await expect
      .poll(async () => ((await missed()).body.events as { webhookId: string }[]).map((e) => e.webhookId))
      .toContain(events[0]!.id);
  });

  it("a refreshed Company token still reports the choice", async () => {
    const { code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [],
      allLocations: true,
      installToFutureLocations: true,
    });
    const first = await postCodeGrant(api, app, code);
    const refreshed = await api.post("/oauth/token", {
      form: refreshGrant(app, String(first.body.refresh_token)),
      version: null,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ approveAllLocations: true, installToFutureLocations: true });
  });

  it("is idempotent: a second run for the same sub-account adds no row and no event", async () => {
    const location = await createLocation({ companyId: agency.company.id, name: "Retried" });
    const again = await db().$transaction((tx) => installAppsOnNewSubAccount(tx, location, new Date()));
    expect(again).toEqual([]);
    // Two at once (two instances retrying): still one row and one event.
    await db().installationLocation.deleteMany({ where: { installationId, locationId: location.id } });
    await db().webhookEvent.deleteMany({
      where: { id: { in: (await installEventsFor(app.app.id, location.id)).map((e) => e.id) } },
    });
    const runs = await Promise.all(
      [1, 2].map(() => db().$transaction((tx) => installAppsOnNewSubAccount(tx, location, new Date()))),
    );
    expect(runs.flat()).toEqual([installationId]);
    expect(await joined(installationId, location.id)).toBe(1);
    expect(await installEventsFor(app.app.id, location.id)).toHaveLength(1);
  });

  it("a sub-account created while the install is approved is never left out", async () => {
    const racing = await makeAgency({ locations: 1 });
    const racingApp = await makeApp(racing.company.id);
    const [approved, ...created] = await Promise.all([
      install(racing.owner, racingApp.app.clientId, {
        level: "agency",
        locationIds: [],
        allLocations: true,
        installToFutureLocations: true,
      }),
      createLocation({ companyId: racing.company.id, name: "Racer 1" }),
      createLocation({ companyId: racing.company.id, name: "Racer 2" }),
    ]);
    const covered = await db().installationLocation.findMany({ where: { installationId: approved!.installationId } });
    expect(covered.map((c) => c.locationId).sort()).toEqual(
      [racing.locations[0]!.id, ...created.map((l) => l.id)].sort(),
    );
  });
});

describe("installs that do not get sub-accounts created later", () => {
  it.each([
    ["some sub-accounts", (a: TestAgency) => ({ locationIds: [a.locations[0]!.id] }), false, false],
    [
      "all sub-accounts, box unchecked",
      () => ({ locationIds: [], allLocations: true, installToFutureLocations: false }),
      true,
      false,
    ],
    [
      "some sub-accounts, box sent anyway",
      (a: TestAgency) => ({ locationIds: [a.locations[0]!.id], installToFutureLocations: true }),
      false,
      false,
    ],
  ])("%s", async (_name, target, approveAll, future) => {
    const agency = await makeAgency({ locations: 2 });
    const app = await makeApp(agency.company.id, hooks);
    const { installationId, token } = await installAgency(agency, app, target(agency));
    expect(token).toMatchObject({ approveAllLocations: approveAll, installToFutureLocations: future });
    const later = await createLocation({ companyId: agency.company.id, name: "Later" });
    expect(await joined(installationId, later.id)).toBe(0);
    expect(await installEventsFor(app.app.id, later.id)).toHaveLength(0);
    expect((await exchangeForLocation(agency, token.access_token, later.id)).status).toBe(403);
  });

  it("every sub-account chosen one by one counts as all", async () => {
    const agency = await makeAgency({ locations: 2 });
    const app = await makeApp(agency.company.id);
    const { token } = await installAgency(agency, app, {
      locationIds: agency.locations.map((l) => l.id),
      installToFutureLocations: true,
    });
    expect(token).toMatchObject({ approveAllLocations: true, installToFutureLocations: true });
  });

  it("a re-install that chooses some sub-accounts turns it off; an uninstalled app gets nothing", async () => {
    const agency = await makeAgency({ locations: 2 });
    const app = await makeApp(agency.company.id, hooks);
    const all = { locationIds: [], allLocations: true, installToFutureLocations: true };
    const { installationId } = await installAgency(agency, app, all);
    const narrowed = await installAgency(agency, app, { locationIds: [agency.locations[0]!.id] });
    expect(narrowed.installationId).toBe(installationId);
    expect(narrowed.token).toMatchObject({ approveAllLocations: false, installToFutureLocations: false });
    const afterNarrowing = await createLocation({ companyId: agency.company.id, name: "After narrowing" });
    expect(await joined(installationId, afterNarrowing.id)).toBe(0);

    await installAgency(agency, app, all);
    await uninstallApp({ installationId });
    const afterUninstall = await createLocation({ companyId: agency.company.id, name: "After uninstall" });
    expect(await joined(installationId, afterUninstall.id)).toBe(0);
    expect(await installEventsFor(app.app.id, afterUninstall.id)).toHaveLength(0);
  });

  it("sub-account installs and other agencies' installs are untouched", async () => {
    const agency = await makeAgency({ locations: 1 });
    const other = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id, hooks);
    const subUser = await makeUser(agency.company.id, "account_admin", { locationIds: [agency.locations[0]!.id] });
    await install(subUser, app.app.clientId, { level: "location", locationId: agency.locations[0]!.id });
    const { installationId } = await installAgency(other, app, {
      locationIds: [],
      allLocations: true,
      installToFutureLocations: true,
    });
    const later = await createLocation({ companyId: agency.company.id, name: "Later" });
    expect(await db().installationLocation.count({ where: { locationId: later.id } })).toBe(0);
    expect(await installEventsFor(app.app.id, later.id)).toHaveLength(0);
    const otherLater = await createLocation({ companyId: other.company.id, name: "Other later" });
    expect(await joined(installationId, otherLater.id)).toBe(1);
  });

  it("an agency without sub-accounts that installs for all gets the first one", async () => {
    const agency = await makeAgency({ locations: 0 });
    const app = await makeApp(agency.company.id, hooks);
    const { installationId, token } = await installAgency(agency, app, {
      locationIds: [],
      allLocations: true,
      installToFutureLocations: true,
    });
    expect(token).toMatchObject({ approvedLocations: [], approveAllLocations: true, installToFutureLocations: true });
    const first = await createLocation({ companyId: agency.company.id, name: "First" });
    expect(await joined(installationId, first.id)).toBe(1);
    expect(await installEventsFor(app.app.id, first.id)).toHaveLength(1);
  });
});

describe("the install screen's box", () => {
  it("starts checked, and a re-install shows the choice made last time", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    expect(await installChoiceFor(agency.owner, app.app)).toMatchObject({
      level: "agency",
      installToFutureLocations: true,
      approveAllLocations: false,
    });
    await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [],
      allLocations: true,
      installToFutureLocations: false,
    });
    expect(await installChoiceFor(agency.owner, app.app)).toMatchObject({
      installToFutureLocations: false,
      approveAllLocations: true,
    });
  });
});
