// Over 250 lines on purpose: the install screen's rules (validation, who installs where, approve)
// share one agency with three kinds of app and two installers.
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import type { CreatedApp } from "@/lib/apps/registry";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/refusal";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { authorizeParams, install, makeApp, pkcePair, testRedirectUri } from "@/lib/testing/oauth";
import { refusal } from "@/lib/testing/refusal";
import { installPayloadFields } from "@/lib/testing/webhook-payloads";
import { uninstallApp } from "../uninstall";
import { denyInstall } from "./approve";
import { installChoiceFor } from "./install-choice";
import { AUTHORIZATION_CODE_TTL_MS } from "./issue-code";
import { authorizeParamsFrom } from "./params";
import { validateAuthorizeRequest } from "./validate";

let agency: TestAgency;
let everyone: CreatedApp;
let agencyOnly: CreatedApp;
let hooked: CreatedApp;
let agencyUser: Actor;
let subUser: Actor;

beforeAll(async () => {
  agency = await makeAgency({ locations: 3, whitelabelDomain: "app.agency.example" });
  everyone = await makeApp(agency.company.id);
  agencyOnly = await makeApp(agency.company.id, { installSetting: "agency_only" });
  hooked = await makeApp(agency.company.id, { webhookUrl: "https://hooks.example.test/in" });
  agencyUser = await makeUser(agency.company.id, "agency_user");
  subUser = await makeUser(agency.company.id, "account_user", {
    locationIds: [agency.locations[0]!.id, agency.locations[1]!.id],
  });
});

describe("validateAuthorizeRequest", () => {
  it("a good request names the app, its scopes (all when scope is absent) and echoes state", async () => {
    const check = await validateAuthorizeRequest(authorizeParams(everyone.app.clientId));
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.request.app.id).toBe(everyone.app.id);
    expect(check.request.scopes).toEqual(everyone.app.scopes);
    expect(check.request.state).toBe("st-123");
    expect(check.request.developerName).toBe(agency.company.name);
  });

  it("scope narrows to a subset of the app's scopes", async () => {
    const check = await validateAuthorizeRequest(
      authorizeParams(everyone.app.clientId, { scope: "contacts.write oauth.readonly" }),
    );
    expect(check.ok && check.request.scopes).toEqual(["oauth.readonly", "contacts.write"]);
  });

  it.each([
    ["no client_id", { client_id: null }, /does not say which app/],
    ["an unknown client_id", { client_id: "nope" }, /No app matches this install link/],
    ["no redirect_uri", { redirect_uri: null }, /does not say where to send you back/],
    ["an unregistered redirect_uri", { redirect_uri: "https://evil.example/cb" }, /not registered/],
    ["a redirect_uri differing by a slash", { redirect_uri: `${testRedirectUri}/` }, /not registered/],
  ])("%s: an error screen, never a redirect", async (_case, override, message) => {
    const check = await validateAuthorizeRequest({ ...authorizeParams(everyone.app.clientId), ...override });
    expect(check).toMatchObject({ ok: false, kind: "screen", status: 400 });
    if (!check.ok) expect(check.message).toMatch(message);
  });

  it.each([
    ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
    ["a scope the app lacks", { scope: "locations.write" }, "invalid_scope"],
    ["an unknown scope", { scope: "everything" }, "invalid_scope"],
    ["PKCE plain", { code_challenge: pkcePair().challenge, code_challenge_method: "plain" }, "invalid_request"],
    ["a challenge without method", { code_challenge: pkcePair().challenge }, "invalid_request"],
    ["a malformed challenge", { code_challenge: "abc", code_challenge_method: "S256" }, "invalid_request"],
  ])("%s: back to the registered redirect_uri with error and state", async (_case, override, error) => {
    const check = await validateAuthorizeRequest({ ...authorizeParams(everyone.app.clientId), ...override });
    expect(check).toMatchObject({ ok: false, kind: "redirect", error });
    if (check.ok || check.kind !== "redirect") return;
    const url = new URL(check.redirectTo);
    expect(`${url.origin}${url.pathname}`).toBe(testRedirectUri);
    expect(url.searchParams.get("error")).toBe(error);
    expect(url.searchParams.get("state")).toBe("st-123");
  });

  it("a parameter given twice is refused", async () => {
    const params = authorizeParamsFrom(
      new URLSearchParams(
        `response_type=code&client_id=${everyone.app.clientId}&redirect_uri=${encodeURIComponent(testRedirectUri)}&scope=a&scope=b`,
      ),
    );
    expect(await validateAuthorizeRequest(params)).toMatchObject({ ok: false, kind: "redirect" });
    const twoClients = authorizeParamsFrom({ client_id: [everyone.app.clientId, "x"] });
    expect(await validateAuthorizeRequest(twoClients)).toMatchObject({ ok: false, kind: "screen" });
  });
});

describe("installChoiceFor: who installs where", () => {
  it("an agency owner installs an Agency-only app at agency level, choosing among all sub-accounts", async () => {
    const choice = await installChoiceFor(agency.owner, agencyOnly.app);
    expect(choice).toMatchObject({ allowed: true, level: "agency" });
    if (choice.allowed) expect(choice.locations).toHaveLength(3);
  });

  it("an agency user installs an Everyone app at agency level, but not an Agency-only one (403)", async () => {
    expect(await installChoiceFor(agencyUser, everyone.app)).toMatchObject({ allowed: true, level: "agency" });
    expect(await installChoiceFor(agencyUser, agencyOnly.app)).toMatchObject({ allowed: false, status: 403 });
  });

  it("a sub-account user picks one of their sub-accounts; Agency-only apps are refused (403)", async () => {
    const choice = await installChoiceFor(subUser, everyone.app);
    expect(choice).toMatchObject({ allowed: true, level: "location" });
    if (choice.allowed) {
      expect(choice.locations.map((l) => l.id).sort()).toEqual(
        [agency.locations[0]!.id, agency.locations[1]!.id].sort(),
      );
    }
    const refused = await installChoiceFor(subUser, agencyOnly.app);
    expect(refused).toMatchObject({ allowed: false, status: 403 });
    if (!refused.allowed) expect(refused.message).toMatch(/agency owner or admin/);
  });
});

describe("approveInstall", () => {
  it("an agency install of two of three sub-accounts redirects with code and state, code bound and hashed", async () => {
    const { challenge } = pkcePair();
    const now = new Date();
    const chosen = [agency.locations[0]!.id, agency.locations[2]!.id];
    const result = await install(
      agency.owner,
      everyone.app.clientId,
      { level: "agency", locationIds: chosen },
      { code_challenge: challenge, code_challenge_method: "S256" },
      now,
    );
    const url = new URL(result.redirectTo);
    expect(`${url.origin}${url.pathname}`).toBe(testRedirectUri);
    expect(url.searchParams.get("code")).toBe(result.code);
    expect(url.searchParams.get("state")).toBe("st-123");
    const installation = await db().installation.findUniqueOrThrow({
      where: { id: result.installationId },
      include: { locations: true },
    });
    expect(installation).toMatchObject({
      appId: everyone.app.id,
      userType: "Company",
      companyId: agency.company.id,
      locationId: null,
      status: "installed",
      installedByUserId: agency.owner.id,
      versionId: everyone.app.versionId,
    });
    expect(installation.locations.map((l) => l.locationId).sort()).toEqual([...chosen].sort());
    const code = await db().authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(result.code) } });
    expect(code).toMatchObject({
      appId: everyone.app.id,
      redirectUri: testRedirectUri,
      codeChallenge: challenge,
      consumedAt: null,
      userId: agency.owner.id,
    });
    expect(code.expiresAt.getTime() - now.getTime()).toBe(AUTHORIZATION_CODE_TTL_MS);
  });

  it("installing again re-authorizes the same installation with a new code", async () => {
    const first = await install(agency.owner, everyone.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const second = await install(agency.owner, everyone.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[1]!.id],
    });
    expect(second.installationId).toBe(first.installationId);
    expect(second.code).not.toBe(first.code);
    const choice = await installChoiceFor(agency.owner, everyone.app);
    expect(choice.allowed && choice.level === "agency" && choice.installedLocationIds).toEqual([
      agency.locations[1]!.id,
    ]);
  });

  it("concurrent first installs of one place end in one installation", async () => {
    const app = await makeApp(agency.company.id);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        install(agency.owner, app.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] }),
      ),
    );
    expect(new Set(results.map((r) => r.installationId)).size).toBe(1);
  });

  it("a sub-account install is a Location installation of that sub-account", async () => {
    const result = await install(subUser, everyone.app.clientId, {
      level: "location",
      locationId: agency.locations[1]!.id,
    });
    const installation = await db().installation.findUniqueOrThrow({ where: { id: result.installationId } });
    expect(installation).toMatchObject({ userType: "Location", locationId: agency.locations[1]!.id });
  });

  it("refuses what the screen would not offer", async () => {
    expect(
      (
        await refusal(
          install(subUser, agencyOnly.app.clientId, { level: "location", locationId: agency.locations[0]!.id }),
        )
      ).kind,
    ).toBe("forbidden");
    expect(
      (
        await refusal(
          install(subUser, everyone.app.clientId, { level: "location", locationId: agency.locations[2]!.id }),
        )
      ).kind,
    ).toBe("forbidden");
    const other = await makeAgency({ locations: 1 });
    expect(
      (
        await refusal(
          install(agency.owner, everyone.app.clientId, { level: "agency", locationIds: [other.locations[0]!.id] }),
        )
      ).field,
    ).toBe("locationIds");
    expect(
      (await refusal(install(agency.owner, everyone.app.clientId, { level: "agency", locationIds: [] }))).message,
    ).toMatch(/at least one sub-account/);
    expect(
      (
        await refusal(
          install(subUser, everyone.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] }),
        )
      ).kind,
    ).toBe("invalid");
    expect(
      (
        await refusal(
          install(
            agency.owner,
            everyone.app.clientId,
            { level: "agency", locationIds: [agency.locations[0]!.id] },
            { redirect_uri: "https://evil.example/cb" },
          ),
        )
      ).kind,
    ).toBe("invalid");
  });
});

describe("INSTALL and UNINSTALL outbox events", () => {
  const eventsOf = async (appId: string, since: Date) =>
    db().webhookEvent.findMany({ where: { appId, createdAt: { gte: since } }, orderBy: { createdAt: "asc" } });

  it("an agency install writes one Location event per chosen sub-account, and nothing else", async () => {
    const now = new Date(Date.now() + 1000);
    const chosen = [agency.locations[0]!.id, agency.locations[2]!.id];
    await install(agency.owner, hooked.app.clientId, { level: "agency", locationIds: chosen }, {}, now);
    const events = await eventsOf(hooked.app.id, now);
    expect(events.map((e) => e.type)).toEqual(["INSTALL", "INSTALL"]);
    const payloads = events.map((e) => e.payload as Record<string, unknown>);
    const location = payloads.filter((p) => p.installType === "Location");
    expect(location.map((p) => p.locationId).sort()).toEqual([...chosen].sort());
    expect(payloads.filter((p) => p.installType === "Company")).toHaveLength(0);
    for (const [i, payload] of payloads.entries()) {
      expect(Object.keys(payload).sort()).toEqual([...installPayloadFields].sort());
      expect(payload).toMatchObject({
        type: "INSTALL",
        appId: hooked.app.id,
        versionId: hooked.app.versionId,
        companyId: agency.company.id,
        userId: agency.owner.id,
        companyName: agency.company.name,
        isWhitelabelCompany: true,
        whitelabelDetails: { logoUrl: null, domain: "app.agency.example" },
        timestamp: now.toISOString(),
        webhookId: events[i]!.id,
      });
      expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(events[i]!.targetUrl).toBe("https://hooks.example.test/in");
    }
  });

  it("a sub-account install writes one Location event; an app without webhook URL none", async () => {
    const now = new Date(Date.now() + 2000);
    await install(subUser, hooked.app.clientId, { level: "location", locationId: agency.locations[0]!.id }, {}, now);
    const events = await eventsOf(hooked.app.id, now);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ installType: "Location", locationId: agency.locations[0]!.id });
    await install(subUser, everyone.app.clientId, { level: "location", locationId: agency.locations[0]!.id }, {}, now);
    expect(await eventsOf(everyone.app.id, now)).toHaveLength(0);
  });

  it("uninstall writes UNINSTALL events of the same shape, revokes and is done once", async () => {
    const app = await makeApp(agency.company.id, { webhookUrl: "https://hooks.example.test/in" });
    const chosen = [agency.locations[0]!.id, agency.locations[1]!.id];
    const { installationId, code } = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: chosen,
    });
    const now = new Date(Date.now() + 3000);
    // A sub-account user cannot uninstall the agency's install.
    expect((await refusal(uninstallApp({ installationId, actor: subUser }))).kind).toBe("forbidden");
    await uninstallApp({ installationId, actor: agency.owner, now });
    const events = await eventsOf(app.app.id, now);
    expect(events.map((e) => e.type)).toEqual(["UNINSTALL", "UNINSTALL"]);
    expect(events.map((e) => (e.payload as { locationId: string }).locationId).sort()).toEqual([...chosen].sort());
    expect(events.every((e) => (e.payload as { installType: string }).installType === "Location")).toBe(true);
    const installation = await db().installation.findUniqueOrThrow({ where: { id: installationId } });
    expect(installation).toMatchObject({ status: "uninstalled" });
    const codeRow = await db().authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
    expect(codeRow.expiresAt.getTime()).toBeLessThanOrEqual(now.getTime());
    expect((await refusal(uninstallApp({ installationId, actor: agency.owner }))).kind).toBe("not_found");
    expect(await db().auditLog.count({ where: { targetId: installationId, action: "app_uninstalled" } })).toBe(1);
  });
});

describe("denyInstall", () => {
  it("Cancel goes back with access_denied and state", async () => {
    const url = new URL(await denyInstall(authorizeParams(everyone.app.clientId)));
    expect(url.searchParams.get("error")).toBe("access_denied");
    expect(url.searchParams.get("state")).toBe("st-123");
  });

  it("never redirects to an unregistered URI", async () => {
    await expect(
      denyInstall(authorizeParams(everyone.app.clientId, { redirect_uri: "https://evil.example/cb" })),
    ).rejects.toBeInstanceOf(Refusal);
  });
});

describe("marketplace listings", () => {
  it("an Agency-only app is listed for agency owners and admins only", async () => {
    const { listInstallableApps } = await import("../marketplace");
    // Apps of their own: those above are installed by now, and an installed app is not offered again.
    const everyoneApp = await makeApp(agency.company.id);
    const agencyOnlyApp = await makeApp(agency.company.id, { installSetting: "agency_only" });
    const ownerView = (await listInstallableApps(agency.owner)).map((a) => a.id);
    expect(ownerView).toContain(agencyOnlyApp.app.id);
    expect(ownerView).toContain(everyoneApp.app.id);
    for (const actor of [agencyUser, subUser]) {
      const ids = (await listInstallableApps(actor)).map((a) => a.id);
      expect(ids).toContain(everyoneApp.app.id);
      expect(ids).not.toContain(agencyOnlyApp.app.id);
    }
  });

  it("installed apps show where they are installed and who may uninstall", async () => {
    const { listInstalledApps } = await import("../marketplace");
    const app = await makeApp(agency.company.id);
    const agencyInstall = await install(agency.owner, app.app.clientId, {
      level: "agency",
      locationIds: [agency.locations[0]!.id],
    });
    const ownerView = (await listInstalledApps(agency.owner)).find(
      (i) => i.installationId === agencyInstall.installationId,
    );
    expect(ownerView).toMatchObject({ userType: "Company", canUninstall: true });
    expect(ownerView?.locations.map((l) => l.id)).toEqual([agency.locations[0]!.id]);
    const subView = (await listInstalledApps(subUser)).find((i) => i.installationId === agencyInstall.installationId);
    expect(subView).toMatchObject({ canUninstall: false });
    const own = await install(subUser, app.app.clientId, { level: "location", locationId: agency.locations[1]!.id });
    expect((await listInstalledApps(subUser)).find((i) => i.installationId === own.installationId)).toMatchObject({
      userType: "Location",
      canUninstall: true,
    });
  });
});
