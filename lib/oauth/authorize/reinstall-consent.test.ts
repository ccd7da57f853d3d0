// Over 250 lines on purpose: SPEC.md's "installing again never goes around consent", for agency and
// sub-account installs, declined and pending updates, non-approvers and approvers, token and screen.
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { Actor } from "@/lib/accounts/permissions";
import type { CreatedApp } from "@/lib/apps/registry";
import { updateApp } from "@/lib/apps/registry";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import type { Scope } from "@/lib/scopes";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import {
  install,
  installAndExchange,
  makeApp,
  redeemCode,
  redeemRefreshToken,
  type TokenAnswer,
} from "@/lib/testing/oauth";
import { installationUpdatedEvents } from "@/lib/testing/webhook-payloads";
import { declineUpdate, getPendingUpdate, listPendingUpdates } from "../app-updates";
import { uninstallApp } from "../uninstall";
import { installChoiceFor, listedGrant } from "./install-choice";
import type { InstallTarget } from "./resolve-target";

/**
 * SPEC.md › Apps that grow without reinstalls: re-authorized by someone who may not approve
 * updates, an installation keeps its approved version and scopes (a declined update stays
 * declined); an approver's re-install moves it to the newest version, which counts as an approval
 * with one `INSTALLATION_UPDATED`. Checked through the code exchange, the refresh,
 * /oauth/locationToken, the installation row, the outbox and the install screen's data.
 */

const api = apiClient(apiRoutes);
/** Agency installs need oauth.write for /oauth/locationToken; contacts.* are sub-account scopes, ADDED is at both levels. */
const AGENCY_SCOPES: Scope[] = ["oauth.write", "locations.readonly", "contacts.readonly"];
const LOCATION_SCOPES: Scope[] = ["locations.readonly", "contacts.readonly"];
const ADDED: Scope = "users.readonly";

const sorted = (scopes: string) => scopes.split(" ").filter(Boolean).sort();

/** /oauth/locationToken with the Company token: the Location token's scope and version. */
async function locationTokenGrant(companyToken: string, companyId: string, locationId: string) {
  const answer = await api.post("/oauth/locationToken", { form: { companyId, locationId }, token: companyToken });
  expect(answer.status).toBe(200);
  return { scope: String(answer.body.scope), versionId: decodeJwt(String(answer.body.access_token)).versionId };
}

async function newestVersionId(appId: string): Promise<string> {
  const newest = await db().appVersion.findFirstOrThrow({
    where: { appId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true },
  });
  return newest.id;
}

interface World {
  agency: TestAgency;
  app: CreatedApp;
  installationId: string;
  /** The version and scopes the installation was installed with (approved). */
  approved: { versionId: string; scopes: string[] };
  /** The newest version, which adds ADDED. */
  newestVersionId: string;
  target: InstallTarget;
  userType: "Company" | "Location";
  tokens: TokenAnswer;
}

/**
 * The app installed by `installer` (an agency install of every sub-account, or a sub-account
 * install of the first), then a version adding ADDED, left pending or declined by `installer`.
 */
async function installedThenUpdated(options: {
  level: "agency" | "location";
  update: "pending" | "declined";
  installer: (agency: TestAgency) => Promise<Actor>;
}): Promise<World> {
  const agency = await makeAgency({ locations: 2 });
  const scopes = options.level === "agency" ? AGENCY_SCOPES : LOCATION_SCOPES;
  const app = await makeApp(agency.company.id, { scopes, webhookUrl: "https://hooks.example.test/in" });
  const target: InstallTarget =
    options.level === "agency"
      ? { level: "agency", locationIds: [], allLocations: true }
      : { level: "location", locationId: agency.locations[0]!.id };
  const installer = await options.installer(agency);
  const tokens = await installAndExchange(installer, app, target);
  const installation = await db().installation.findFirstOrThrow({
    where: { appId: app.app.id },
    select: { id: true, versionId: true, scopes: true },
  });
  await updateApp(app.app.id, { scopes: [...scopes, ADDED] }, agency.owner);
  if (options.update === "declined") await declineUpdate({ actor: installer, installationId: installation.id });
  return {
    agency,
    app,
    installationId: installation.id,
    approved: { versionId: installation.versionId, scopes: installation.scopes },
    newestVersionId: await newestVersionId(app.app.id),
    target,
    userType: options.level === "agency" ? "Company" : "Location",
    tokens,
  };
}

const ownerOf = async (agency: TestAgency) => agency.owner;
const subAccountAdmin = (agency: TestAgency) =>
  makeUser(agency.company.id, "account_admin", { locationIds: [agency.locations[0]!.id] });

/** A re-install by someone who may not approve updates leaves the installation on its approved grant. */
async function expectKeptApprovedGrant(w: World, reinstaller: Actor, declinedVersionId: string | null) {
  const { code, installationId } = await install(reinstaller, w.app.app.clientId, w.target);
  expect(installationId).toBe(w.installationId);

  const installation = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
  expect(installation).toMatchObject({
    versionId: w.approved.versionId,
    scopes: w.approved.scopes,
    declinedVersionId,
    status: "installed",
  });
  // The code records what it grants, not what the newest version asks for.
  const stored = await db().authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
  expect(stored.scopes).not.toContain(ADDED);

  const exchanged = await redeemCode(w.app, code, w.userType);
  expect(exchanged.scope.split(" ")).not.toContain(ADDED);
  expect(sorted(exchanged.scope)).toEqual(
    w.userType === "Company" ? ["locations.readonly", "oauth.write"] : [...LOCATION_SCOPES].sort(),
  );
  expect(decodeJwt(exchanged.access_token).versionId).toBe(w.approved.versionId);

  const refreshed = await redeemRefreshToken(w.app, exchanged.refresh_token);
  expect(refreshed.scope).toBe(exchanged.scope);
  expect(decodeJwt(refreshed.access_token).versionId).toBe(w.approved.versionId);

  if (w.userType === "Company") {
    const location = await locationTokenGrant(refreshed.access_token, w.agency.company.id, w.agency.locations[0]!.id);
    expect(sorted(location.scope)).toEqual([...LOCATION_SCOPES].sort());
    expect(location.versionId).toBe(w.approved.versionId);
  }
  // The app's own earlier tokens gained nothing either.
  const earlier = await redeemRefreshToken(w.app, w.tokens.refresh_token);
  expect(earlier.scope.split(" ")).not.toContain(ADDED);

  expect(await installationUpdatedEvents(w.app.app.id)).toEqual([]);
  // The INSTALL events name the version the installation runs.
  const installs = await db().webhookEvent.findMany({ where: { appId: w.app.app.id, type: "INSTALL" } });
  const last = installs.at(-1)!.payload as Record<string, unknown>;
  expect(last.versionId).toBe(w.approved.versionId);
}

describe.each(["declined", "pending"] as const)("a non-approver re-installs while an update is %s", (update) => {
  it("an agency user's re-install of an agency install keeps its approved version and scopes", async () => {
    const w = await installedThenUpdated({ level: "agency", update, installer: ownerOf });
    const agencyUser = await makeUser(w.agency.company.id, "agency_user");
    await expectKeptApprovedGrant(w, agencyUser, update === "declined" ? w.newestVersionId : null);
    // Still for an approver to decide: pending stays offered, declined stays hidden.
    const offered = await listPendingUpdates(w.agency.owner);
    expect(offered.map((u) => u.installationId)).toEqual(update === "pending" ? [w.installationId] : []);
  });

  it("a sub-account user's re-install of a sub-account install keeps its approved version and scopes", async () => {
    const w = await installedThenUpdated({ level: "location", update, installer: subAccountAdmin });
    const subUser = await makeUser(w.agency.company.id, "account_user", { locationIds: [w.agency.locations[0]!.id] });
    await expectKeptApprovedGrant(w, subUser, update === "declined" ? w.newestVersionId : null);
    const pending = await getPendingUpdate(w.agency.owner, w.installationId);
    expect(pending?.versionId).toBe(update === "pending" ? w.newestVersionId : undefined);
  });

  it("the install screen lists the scopes the re-install grants, and names the ones it holds back", async () => {
    const w = await installedThenUpdated({ level: "agency", update, installer: ownerOf });
    const agencyUser = await makeUser(w.agency.company.id, "agency_user");
    const choice = await installChoiceFor(agencyUser, w.app.app, [...AGENCY_SCOPES, ADDED]);
    expect(choice).toMatchObject({ allowed: true, level: "agency", scopes: AGENCY_SCOPES, withheld: [ADDED] });
    if (!choice.allowed) throw new Error("expected an agency choice");
    expect(listedGrant(choice, [...AGENCY_SCOPES, ADDED])).toEqual({ scopes: AGENCY_SCOPES, withheld: [ADDED] });
    // An approver's re-install grants everything asked for.
    const forOwner = await installChoiceFor(w.agency.owner, w.app.app, [...AGENCY_SCOPES, ADDED]);
    expect(forOwner).toMatchObject({ scopes: [...AGENCY_SCOPES, ADDED], withheld: [] });
  });

  it("the sub-account screen does the same for each sub-account", async () => {
    const w = await installedThenUpdated({ level: "location", update, installer: subAccountAdmin });
    const [installed, other] = w.agency.locations;
    const subUser = await makeUser(w.agency.company.id, "account_user", { locationIds: [installed!.id, other!.id] });
    const choice = await installChoiceFor(subUser, w.app.app, [...LOCATION_SCOPES, ADDED]);
    if (!choice.allowed || choice.level !== "location") throw new Error("expected a sub-account choice");
    expect(choice.locations.find((l) => l.id === installed!.id)).toMatchObject({
      installed: true,
      scopes: LOCATION_SCOPES,
      withheld: [ADDED],
    });
    // Not installed there yet: a first install, which grants what the app asks for.
    expect(choice.locations.find((l) => l.id === other!.id)).toMatchObject({
      installed: false,
      scopes: [...LOCATION_SCOPES, ADDED],
      withheld: [],
    });
    // Two sub-accounts granting differently: the screen lists what is asked for, each names the rest.
    expect(listedGrant(choice, [...LOCATION_SCOPES, ADDED])).toEqual({
      scopes: [...LOCATION_SCOPES, ADDED],
      withheld: [],
    });
    const onlyThere = await makeUser(w.agency.company.id, "account_user", { locationIds: [installed!.id] });
    const single = await installChoiceFor(onlyThere, w.app.app, [...LOCATION_SCOPES, ADDED]);
    if (!single.allowed) throw new Error("expected a sub-account choice");
    expect(listedGrant(single, [...LOCATION_SCOPES, ADDED])).toEqual({ scopes: LOCATION_SCOPES, withheld: [ADDED] });
  });
});

/** An approver's re-install moves the installation to the newest version and counts as an approval. */
async function expectApprovedByReinstall(w: World, approver: Actor) {
  const { code } = await install(approver, w.app.app.clientId, w.target);
  const installation = await db().installation.findUniqueOrThrow({ where: { id: w.installationId } });
  expect(installation).toMatchObject({ versionId: w.newestVersionId, declinedVersionId: null });
  expect(installation.scopes).toContain(ADDED);

  const exchanged = await redeemCode(w.app, code, w.userType);
  expect(exchanged.scope.split(" ")).toContain(ADDED);
  expect(decodeJwt(exchanged.access_token).versionId).toBe(w.newestVersionId);
  // As an approval does: the grants made before it carry the added scope at their next refresh.
  const earlier = await redeemRefreshToken(w.app, w.tokens.refresh_token);
  expect(earlier.scope.split(" ")).toContain(ADDED);
  if (w.userType === "Company") {
    const location = await locationTokenGrant(earlier.access_token, w.agency.company.id, w.agency.locations[0]!.id);
    expect(location.scope.split(" ")).toContain(ADDED);
    expect(location.versionId).toBe(w.newestVersionId);
  }

  const events = await installationUpdatedEvents(w.app.app.id);
  expect(events).toEqual([
    {
      type: "INSTALLATION_UPDATED",
      appId: w.app.app.id,
      versionId: w.newestVersionId,
      previousVersionId: w.approved.versionId,
      installType: w.userType,
      companyId: w.agency.company.id,
      ...(w.userType === "Location" ? { locationId: w.agency.locations[0]!.id } : {}),
      scopes: installation.scopes,
      previousScopes: w.approved.scopes,
      userId: approver.id,
      timestamp: expect.any(String),
      webhookId: expect.any(String),
    },
  ]);
  expect(await listPendingUpdates(approver)).toEqual([]);
  const audit = await db().auditLog.findMany({
    where: { targetId: w.installationId, action: "app_update_approved" },
    select: { actorUserId: true, details: true },
  });
  expect(audit).toEqual([
    {
      actorUserId: approver.id,
      details: expect.objectContaining({
        fromVersionId: w.approved.versionId,
        toVersionId: w.newestVersionId,
        added: [ADDED],
      }),
    },
  ]);

  // Once on the newest version, another re-install is no further approval.
  const again = await install(approver, w.app.app.clientId, w.target);
  await redeemCode(w.app, again.code, w.userType);
  expect(await installationUpdatedEvents(w.app.app.id)).toHaveLength(1);
}

describe.each(["declined", "pending"] as const)("an approver re-installs while an update is %s", (update) => {
  it("an agency admin's re-install of an agency install approves the update", async () => {
    const w = await installedThenUpdated({ level: "agency", update, installer: ownerOf });
    await expectApprovedByReinstall(w, await makeUser(w.agency.company.id, "agency_admin"));
  });

  it("the sub-account's admin re-installing a sub-account install approves the update", async () => {
    const w = await installedThenUpdated({ level: "location", update, installer: subAccountAdmin });
    await expectApprovedByReinstall(w, await subAccountAdmin(w.agency));
  });
});

describe("a re-install that is a first install again", () => {
  it("after an uninstall, installing is a new install of the newest version", async () => {
    const w = await installedThenUpdated({ level: "agency", update: "declined", installer: ownerOf });
    await uninstallApp({ installationId: w.installationId, actor: w.agency.owner });
    const agencyUser = await makeUser(w.agency.company.id, "agency_user");
    const { code } = await install(agencyUser, w.app.app.clientId, w.target);
    const exchanged = await redeemCode(w.app, code, "Company");
    expect(exchanged.scope.split(" ")).toContain("oauth.write");
    expect(decodeJwt(exchanged.access_token).versionId).toBe(w.newestVersionId);
    expect(await installationUpdatedEvents(w.app.app.id)).toEqual([]);
  });
});
