// Over 250 lines on purpose: SPEC.md's section on apps that grow without reinstalls, one describe
// per case (versions, consent, decline, several behind, removal), over one app.
import { decodeJwt } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Actor } from "@/lib/accounts/permissions";
import { verifyBearerToken } from "@/lib/api/bearer";
import type { CreatedApp } from "@/lib/apps/registry";
import { updateApp } from "@/lib/apps/registry";
import { listAppVersions } from "@/lib/apps/versions";
import { db } from "@/lib/db/client";
import { apiClient, getLocation } from "@/lib/testing/api-client";
import { makeAgency, makeUser, newContact, type TestAgency } from "@/lib/testing/fixtures";
import { formRequest, installAndExchange, makeApp, redeemRefreshToken } from "@/lib/testing/oauth";
import { installationUpdatedEvents } from "@/lib/testing/webhook-payloads";
import { approveUpdate, declineUpdate, getPendingUpdate, listPendingUpdates } from "./app-updates";
import { introspectToken } from "./introspect";

/**
 * SPEC.md › Apps that grow without reinstalls, at lib level on the database the run uses (PGlite,
 * or PostgreSQL with TEST_DATABASE_URL): versions, consent, removal at once, and that no token
 * grants more than its installation holds now.
 */

const api = apiClient(apiRoutes);
const TWO = ["locations.readonly", "contacts.readonly"];
const THREE = [...TWO, "contacts.write"];

const createContact = (token: string, locationId: string) =>
  api.post("/contacts/", { token, json: newContact(locationId) });

async function scopesOf(token: string): Promise<string[]> {
  const verified = await verifyBearerToken(token);
  if (!verified.ok) throw new Error(`token refused: ${verified.reason}`);
  return [...verified.principal.scopes].sort();
}

interface World {
  agency: TestAgency;
  locationId: string;
  admin: Actor;
  app: CreatedApp;
  installationId: string;
  tokens: { access_token: string; refresh_token: string };
}

/** A sub-account install with two scopes, made by the sub-account's admin. */
async function subAccountInstall(): Promise<World> {
  const agency = await makeAgency({ locations: 2 });
  const locationId = agency.locations[0]!.id;
  const admin = await makeUser(agency.company.id, "account_admin", { locationIds: [locationId] });
  const app = await makeApp(agency.company.id, { scopes: TWO, webhookUrl: "https://hooks.example.test/in" });
  const tokens = await installAndExchange(admin, app, { level: "location", locationId });
  const installation = await db().installation.findFirstOrThrow({
    where: { appId: app.app.id, locationId },
    select: { id: true },
  });
  return { agency, locationId, admin, app, installationId: installation.id, tokens };
}

/** The audit entries of approvals and declines of this installation's updates, oldest first. */
function reviewAudit(installationId: string) {
  return db().auditLog.findMany({
    where: { targetId: installationId, action: { in: ["app_update_approved", "app_update_declined"] } },
    select: { action: true, actorUserId: true, locationId: true, details: true },
    orderBy: { createdAt: "asc" },
  });
}

describe("Versions", () => {
  it("editing the scopes publishes a version listed with its date and the scopes added and removed", async () => {
    const { agency, app } = await subAccountInstall();
    const t1 = new Date(Date.now() + 1_000);
    const t2 = new Date(Date.now() + 2_000);
    await updateApp(app.app.id, { scopes: THREE }, agency.owner, t1);
    await updateApp(app.app.id, { name: "Renamed" }, agency.owner, t2); // no scope change: no version
    await updateApp(app.app.id, { scopes: ["locations.readonly", "contacts.write"] }, agency.owner, t2);
    const { versions, installations, onNewestVersion } = await listAppVersions(app.app.id, agency.owner);
    expect(versions.map((v) => ({ added: v.added, removed: v.removed }))).toEqual([
      { added: [], removed: ["contacts.readonly"] },
      { added: ["contacts.write"], removed: [] },
      { added: TWO, removed: [] },
    ]);
    expect(versions[0]!.createdAt).toEqual(t2);
    expect(versions[1]!.createdAt).toEqual(t1);
    // The removal-only version applied at once to the one installation (it had approved nothing).
    expect(installations).toBe(1);
    expect(onNewestVersion).toBe(0);
  });

  it("only the app's developers see its versions", async () => {
    const { app } = await subAccountInstall();
    const stranger = (await makeAgency({ locations: 0 })).owner;
    await expect(listAppVersions(app.app.id, stranger)).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("a version that adds a scope waits for consent", () => {
  let w: World;
  beforeAll(async () => {
    w = await subAccountInstall();
    await updateApp(w.app.app.id, { scopes: THREE }, w.agency.owner);
  });

  it("old tokens keep working, without the added scope", async () => {
    expect(await scopesOf(w.tokens.access_token)).toEqual([...TWO].sort());
    expect((await getLocation(api, w.tokens.access_token, w.locationId)).status).toBe(200);
    const refused = await createContact(w.tokens.access_token, w.locationId);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("insufficient_scope");
  });

  it("is offered to who may install at that place, and to nobody else", async () => {
    const offered = await listPendingUpdates(w.admin);
    expect(offered).toEqual([
      expect.objectContaining({ installationId: w.installationId, added: ["contacts.write"], removed: [] }),
    ]);
    expect(await listPendingUpdates(w.agency.owner)).toHaveLength(1);
    const agencyUser = await makeUser(w.agency.company.id, "agency_user");
    const subAccountUser = await makeUser(w.agency.company.id, "account_user", { locationIds: [w.locationId] });
    const otherAdmin = await makeUser(w.agency.company.id, "account_admin", {
      locationIds: [w.agency.locations[1]!.id],
    });
    for (const actor of [agencyUser, subAccountUser, otherAdmin]) {
      expect(await listPendingUpdates(actor)).toEqual([]);
      await expect(approveUpdate({ actor, installationId: w.installationId })).rejects.toMatchObject({
        kind: "forbidden",
      });
    }
    const stranger = (await makeAgency({ locations: 0 })).owner;
    await expect(approveUpdate({ actor: stranger, installationId: w.installationId })).rejects.toMatchObject({
      kind: "not_found",
    });
  });

  it("approval moves the installation; the refresh and the API use the new scope; one event", async () => {
    const newest = (await listAppVersions(w.app.app.id, w.agency.owner)).versions[0]!;
    const before = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
    const result = await approveUpdate({ actor: w.admin, installationId: w.installationId });
    expect(result.versionId).toBe(newest.id);
    const after = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
    expect(after.versionId).toBe(newest.id);
    expect(after.scopes).toEqual(THREE);
    expect(await listPendingUpdates(w.admin)).toEqual([]);
    // The old token still carries only what it was issued with.
    expect(await scopesOf(w.tokens.access_token)).toEqual([...TWO].sort());

    const refreshed = await redeemRefreshToken(w.app, w.tokens.refresh_token);
    expect(refreshed.scope.split(" ").sort()).toEqual([...THREE].sort());
    expect(decodeJwt(refreshed.access_token).versionId).toBe(newest.id);
    expect((await createContact(refreshed.access_token, w.locationId)).status).toBe(201);

    const events = await installationUpdatedEvents(w.app.app.id);
    expect(events).toEqual([
      {
        type: "INSTALLATION_UPDATED",
        appId: w.app.app.id,
        versionId: newest.id,
        previousVersionId: before.versionId,
        installType: "Location",
        companyId: w.agency.company.id,
        locationId: w.locationId,
        scopes: THREE,
        previousScopes: TWO,
        userId: w.admin.id,
        timestamp: expect.any(String),
        webhookId: expect.any(String),
      },
    ]);
    await expect(approveUpdate({ actor: w.admin, installationId: w.installationId })).rejects.toMatchObject({
      kind: "conflict",
    });
    expect(await reviewAudit(w.installationId)).toEqual([
      {
        action: "app_update_approved",
        actorUserId: w.admin.id,
        locationId: w.locationId,
        details: {
          appId: w.app.app.id,
          appName: expect.any(String),
          fromVersionId: before.versionId,
          toVersionId: newest.id,
          added: ["contacts.write"],
          removed: [],
        },
      },
    ]);
  });
});

describe("decline", () => {
  it("keeps the installation on its version and hides the update until a newer version", async () => {
    const w = await subAccountInstall();
    await updateApp(w.app.app.id, { scopes: THREE }, w.agency.owner);
    await declineUpdate({ actor: w.admin, installationId: w.installationId });
    expect(await reviewAudit(w.installationId)).toEqual([
      expect.objectContaining({ action: "app_update_declined", actorUserId: w.admin.id, locationId: w.locationId }),
    ]);
    expect(await listPendingUpdates(w.admin)).toEqual([]);
    expect(await getPendingUpdate(w.admin, w.installationId)).toBeUndefined();
    expect(await scopesOf(w.tokens.access_token)).toEqual([...TWO].sort());
    await updateApp(w.app.app.id, { scopes: [...THREE, "users.readonly"] }, w.agency.owner);
    const again = await listPendingUpdates(w.admin);
    expect(again.map((u) => [...u.added].sort())).toEqual([["contacts.write", "users.readonly"]]);
  });
});

describe("an agency install several versions behind", () => {
  it("moves straight to the newest version; one Company event without locationId", async () => {
    const agency = await makeAgency({ locations: 2 });
    const app = await makeApp(agency.company.id, {
      scopes: ["oauth.write", "locations.readonly"],
      webhookUrl: "https://hooks.example.test/in",
    });
    const tokens = await installAndExchange(agency.owner, app, {
      level: "agency",
      locationIds: agency.locations.map((l) => l.id),
    });
    const scopes = ["oauth.write", "locations.readonly"];
    await updateApp(app.app.id, { scopes: [...scopes, "contacts.readonly"] }, agency.owner);
    await updateApp(app.app.id, { scopes: [...scopes, "contacts.readonly", "users.readonly"] }, agency.owner);
    const [update] = await listPendingUpdates(agency.owner);
    expect([...(update?.added ?? [])].sort()).toEqual(["contacts.readonly", "users.readonly"]);
    const admin = await makeUser(agency.company.id, "agency_admin");
    await approveUpdate({ actor: admin, installationId: update!.installationId });
    const events = await installationUpdatedEvents(app.app.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ installType: "Company", companyId: agency.company.id, userId: admin.id });
    expect(events[0]).not.toHaveProperty("locationId");
    const refreshed = await redeemRefreshToken(app, tokens.refresh_token);
    expect(refreshed.scope.split(" ")).toContain("users.readonly");
    // /oauth/locationToken from the Company token issued before the approval carries the new scopes too.
    const location = await api.post("/oauth/locationToken", {
      form: { companyId: agency.company.id, locationId: agency.locations[0]!.id },
      token: tokens.access_token,
    });
    expect(location.status).toBe(200);
    expect(String(location.body.scope).split(" ")).toContain("contacts.readonly");
    expect(decodeJwt(String(location.body.access_token)).versionId).toBe(events[0]!.versionId);
  });
});

describe("a version that only removes scopes applies at once", () => {
  it("an existing access token's removed scope is refused at once; the installation moves; one event", async () => {
    const w = await subAccountInstall();
    // Warm the verification cache first, so the refusal proves it was emptied.
    expect((await getLocation(api, w.tokens.access_token, w.locationId)).status).toBe(200);
    expect((await getLocation(api, w.tokens.access_token, w.locationId)).status).toBe(200);
    await updateApp(w.app.app.id, { scopes: ["contacts.readonly"] }, w.agency.owner);
    const refused = await getLocation(api, w.tokens.access_token, w.locationId);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("insufficient_scope");
    expect(await scopesOf(w.tokens.access_token)).toEqual(["contacts.readonly"]);
    const introspection = await introspectToken(
      formRequest("/oauth/introspect", {
        client_id: w.app.app.clientId,
        client_secret: w.app.clientSecret,
        token: w.tokens.access_token,
      }),
    );
    expect(introspection).toMatchObject({ active: true, scope: "contacts.readonly" });
    const installation = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
    const newest = (await listAppVersions(w.app.app.id, w.agency.owner)).versions[0]!;
    expect(installation).toMatchObject({ versionId: newest.id, scopes: ["contacts.readonly"] });
    expect(await listPendingUpdates(w.admin)).toEqual([]);
    const events = await installationUpdatedEvents(w.app.app.id);
    expect(events).toEqual([
      expect.objectContaining({ scopes: ["contacts.readonly"], previousScopes: TWO, userId: w.agency.owner.id }),
    ]);
    // The next refresh carries only what is left.
    const refreshed = await redeemRefreshToken(w.app, w.tokens.refresh_token);
    expect(refreshed.scope).toBe("contacts.readonly");
    expect((await listAppVersions(w.app.app.id, w.agency.owner)).onNewestVersion).toBe(1);
  });

  it("an installation still behind an added scope loses the removed one and keeps waiting for the rest", async () => {
    const w = await subAccountInstall();
    await updateApp(w.app.app.id, { scopes: THREE }, w.agency.owner);
    await updateApp(w.app.app.id, { scopes: ["contacts.readonly", "contacts.write"] }, w.agency.owner);
    expect(await scopesOf(w.tokens.access_token)).toEqual(["contacts.readonly"]);
    const [update] = await listPendingUpdates(w.admin);
    expect(update).toMatchObject({ added: ["contacts.write"], removed: [] });
  });
});

describe("an approval and a removal-only version at the same time", () => {
  it("end on the newest version with its scopes, whichever commits first", async () => {
    const w = await subAccountInstall();
    await updateApp(w.app.app.id, { scopes: THREE }, w.agency.owner);
    const removal = ["locations.readonly", "contacts.write"];
    await Promise.all([
      approveUpdate({ actor: w.admin, installationId: w.installationId }),
      updateApp(w.app.app.id, { scopes: removal }, w.agency.owner),
    ]);
    const newest = (await listAppVersions(w.app.app.id, w.agency.owner)).versions[0]!;
    const installation = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
    expect(installation.versionId).toBe(newest.id);
    expect([...installation.scopes].sort()).toEqual([...removal].sort());
  });
});
