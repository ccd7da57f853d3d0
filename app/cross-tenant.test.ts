// Over 250 lines on purpose: the cross-tenant suite proves completeness (every action and route
// method has a case), which only holds when every case is in one file with the probe that lists
// them.

import { resolve } from "node:path";
import { exportJWK, generateKeyPair as joseKeyPair } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { GET as contactGet } from "@/app/contacts/[contactId]/route";
import { apiRoutes } from "@/app/route-table";
import type { Actor } from "@/lib/accounts/permissions";
import { type Method, routeFinder } from "@/lib/api/direct-router";
import { isInternal, type Operation } from "@/lib/api/openapi/operation";
import { tokenRoute } from "@/lib/api/token-route";
import { generateKeyPair } from "@/lib/apps/keys";
import type { CreatedApp } from "@/lib/apps/registry";
import { startSession } from "@/lib/auth/sessions";
import { db } from "@/lib/db/client";
import { type LifecycleApi, lifecycleActions, lifecycleKinds } from "@/lib/integrations/catalog";
import { signedInAs } from "@/lib/testing/actor";
import { type ApiRequest, apiClient } from "@/lib/testing/api-client";
import { makeAgency, makeUser, newContact, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";
import { makeIntegration } from "@/lib/testing/integrations";
import { codeGrant, install, installAndExchange, makeApp, testRedirectUri } from "@/lib/testing/oauth";
import { withBurstLimit } from "@/lib/testing/rate-limits";
import { appFilesNamed } from "@/lib/testing/source-tree";
import { leftToNext } from "@/scripts/route-table";

/**
 * One tenant cannot reach another's data, in the spirit of documenso's
 * test-unauthorized-api-access. Every server action (every export of app/**\/actions.ts) is called
 * as agency B's owner and as a sub-account user of A without the permission, with A's ids; every
 * method every route module (app/**\/route.ts) exports is called with each of B's four token kinds
 * (Company, Location, agency and sub-account private integration) and A's ids (the probe
 * finds the routes and methods itself, and a deliberately broken handler is shown to fail it).
 * Each is refused and neither agency's data changes. A new action, or a new route that takes a
 * caller (any method not declared `auth: "none"`), without a case fails the first tests; a route
 * whose methods all take no caller is still probed, and must change nothing and name no id of A.
 */

let signedIn: Actor | null = null;
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => signedIn,
  getSignedIn: async () => (signedIn ? signedInAs(signedIn) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
// The probe below sends B's tokens hundreds of times: a 429 would hide what a handler does.
withBurstLimit(1_000_000);

// ---------------------------------------------------------------------------------------------
// The world: agency A with everything an id can point at, agency B with its own tokens.

interface World {
  A: TestAgency & {
    member: Actor;
    sub: Actor;
    app: CreatedApp;
    installationId: string;
    eventId: string;
    agencyIntegrationId: string;
    locationIntegrationId: string;
    contactId: string;
    companyToken: { access: string; refresh: string };
    locationToken: string;
    pendingCode: string;
    /** A passkey and a session of A's member (the account screen's ids). */
    passkeyId: string;
    sessionId: string;
    /** A key of A's app, and a public key of another pair (for `Add public key`). */
    appKeyId: string;
    publicJwk: string;
  };
  B: TestAgency & {
    app: CreatedApp;
    companyToken: string;
    locationToken: string;
    agencyPit: string;
    locationPit: string;
  };
}
let w: World;

const VERSION = "2021-07-28";
const asBearer = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  version: VERSION,
  ...extra,
});

const api = apiClient(apiRoutes);
const findRoute = routeFinder(apiRoutes);
const contactsPost = (token: string, locationId: string) =>
  api.post("/contacts/", { token, json: newContact(locationId) });

beforeAll(async () => {
  const A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const member = await makeUser(A.company.id, "agency_user");
  const sub = await makeUser(A.company.id, "account_user", {
    locationIds: [A.locations[0]!.id],
    agencyPrivateIntegrations: false,
    locationPrivateIntegrations: false,
  });
  const passkey = await db().passkey.create({
    data: { id: `pk-${member.id}`, userId: member.id, name: "A's key", publicKey: Buffer.from("not a key") },
  });
  const { sid: sessionId } = await startSession(
    { id: member.id, sessionVersion: 0 },
    { userAgent: "", address: "203.0.113.1" },
  );
  const appA = await makeApp(A.company.id, { webhookUrl: "https://hooks.example.test/a" });
  const appKey = await generateKeyPair(appA.app.id);
  const publicJwk = JSON.stringify(await exportJWK((await joseKeyPair("ES256")).publicKey));
  const allOfA = { level: "agency" as const, locationIds: A.locations.map((l) => l.id) };
  const company = await installAndExchange(A.owner, appA, allOfA);
  const location = await installAndExchange(sub, appA, { level: "location", locationId: A.locations[0]!.id });
  // Re-authorizing issues a new code for the same installation: one A has not redeemed yet.
  const { code: pendingCode } = await install(A.owner, appA.app.clientId, allOfA);
  const installation = await db().installation.findFirstOrThrow({
    where: { appId: appA.app.id, companyId: A.company.id, userType: "Company" },
  });
  const event = await db().webhookEvent.findFirstOrThrow({ where: { appId: appA.app.id } });
  const agencyIntegration = await makeIntegration(A, {
    name: "A's agency integration",
    scopes: ["users.readonly"],
    // As the screen creates it: its token unshown until A's owner confirms it with this key (confirmShown).
    issue: { idempotencyKey: aOwnersKey, confirmShown: true },
  });
  const locationIntegration = await makeIntegration(A, {
    locationId: A.locations[0]!.id,
    name: "A's sub-account integration",
    scopes: ["contacts.readonly"],
  });
  const contact = await contactsPost(location.access_token, A.locations[0]!.id);
  expect(contact.status).toBe(201);
  const contactId = (contact.body as { contact: { id: string } }).contact.id;

  const B = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const appB = await makeApp(B.company.id);
  const bCompany = await installAndExchange(B.owner, appB, { level: "agency", locationIds: [B.locations[0]!.id] });
  const bUser = await makeUser(B.company.id, "account_user", { locationIds: [B.locations[0]!.id] });
  const bLocation = await installAndExchange(bUser, appB, { level: "location", locationId: B.locations[0]!.id });
  const agencyPit = await makeIntegration(B, {
    name: "B's agency integration",
    // private-integrations.write: the management API's routes are probed with a caller that may use them.
    scopes: ["locations.readonly", "users.readonly", "private-integrations.write"],
  });
  const locationPit = await makeIntegration(B, {
    locationId: B.locations[0]!.id,
    name: "B's sub-account integration",
    scopes: ["contacts.readonly", "contacts.write", "locations.readonly"],
  });

  w = {
    A: {
      ...A,
      member,
      sub,
      app: appA,
      installationId: installation.id,
      eventId: event.id,
      agencyIntegrationId: agencyIntegration.integration.id,
      locationIntegrationId: locationIntegration.integration.id,
      contactId,
      companyToken: { access: company.access_token, refresh: company.refresh_token },
      locationToken: location.access_token,
      pendingCode,
      passkeyId: passkey.id,
      appKeyId: appKey.key.id,
      publicJwk,
      sessionId,
    },
    B: {
      ...B,
      app: appB,
      companyToken: bCompany.access_token,
      locationToken: bLocation.access_token,
      agencyPit: agencyPit.token,
      locationPit: locationPit.token,
    },
  };
}, 120_000);

/**
 * Everything an agency owns, read fresh: a refused call must leave it exactly as it was.
 * (`lastUsedAt` and `lastUsedAddress` of a private integration token are left out: B using its own token
 * may touch them.)
 */
async function snapshot(companyId: string): Promise<string> {
  const company = await db().company.findUniqueOrThrow({
    where: { id: companyId },
    include: {
      locations: {
        include: { memberships: true, installationLocations: true, contacts: true },
        orderBy: { id: "asc" },
      },
      users: {
        include: {
          memberships: true,
          sessions: { orderBy: { id: "asc" } },
          totpFactor: true,
          passkeys: { orderBy: { id: "asc" } },
          recoveryCodes: { orderBy: { id: "asc" } },
        },
        orderBy: { id: "asc" },
      },
      labsFeatures: true,
      auditLogs: { orderBy: { id: "asc" } },
      apps: {
        orderBy: { id: "asc" },
        include: {
          versions: { orderBy: { id: "asc" } },
          webhookEvents: { include: { deliveryLogs: true }, orderBy: { id: "asc" } },
          keys: { orderBy: { id: "asc" } },
        },
      },
      installations: {
        orderBy: { id: "asc" },
        include: {
          locations: true,
          codes: { orderBy: { id: "asc" } },
          grants: {
            orderBy: { id: "asc" },
            include: { refreshTokens: { orderBy: { id: "asc" } }, accessTokens: { orderBy: { jti: "asc" } } },
          },
        },
      },
      privateIntegrations: {
        include: { tokens: { orderBy: { id: "asc" } }, chosenLocations: { orderBy: { locationId: "asc" } } },
        orderBy: { id: "asc" },
      },
    },
  });
  return JSON.stringify(
    company,
    (key, value) =>
      key === "lastUsedAt" || key === "lastUsedAddress"
        ? undefined
        : typeof value === "bigint"
          ? value.toString()
          : value,
    2,
  );
}

async function unchanged<T>(call: () => Promise<T>, companies = [w.A.company.id, w.B.company.id]): Promise<T> {
  const before = await Promise.all(companies.map(snapshot));
  const result = await call();
  const after = await Promise.all(companies.map(snapshot));
  for (const [i, id] of companies.entries()) expect(after[i], `agency ${id} changed`).toBe(before[i]);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Server actions

type Fields = Record<string, string | string[]>;
/** The idempotency key A's owner created A's agency integration with, as the create dialog sends one. */
const aOwnersKey = "a-owners-create-dialog-key";
type Attacker = "B's owner" | "A's sub-account user without the permission";
interface ActionCase {
  /** The export called, when the case's name is not one (a second case for the same action). */
  action?: string;
  /** The forms sent, each with A's ids in it. */
  forms(attacker: Attacker): Fields[];
  /**
   * Per form sent. `refused` (the default): an error or field error, nothing changed anywhere. `own agency`:
   * the action has no field for an agency; it works on the caller's own agency, so A's ids sent
   * along are ignored and A is unchanged. `nothing to change`: it changes no data for anyone.
   */
  outcome?: (attacker: Attacker, fields: Fields) => "refused" | "own agency" | "nothing to change";
}

const integrationForms =
  (level: "agency" | "location", extra: Fields = {}) =>
  (attacker: Attacker) => {
    const id = level === "agency" ? w.A.agencyIntegrationId : w.A.locationIntegrationId;
    const base = { integrationId: id, ...extra };
    if (level === "agency") return [base, { ...base, locationId: w.A.locations[0]!.id }];
    const forms: Fields[] = [{ ...base, locationId: w.A.locations[0]!.id }];
    // B also tries A's integration under its own sub-account, and A's sub-account user one it is not in.
    if (attacker === "B's owner") forms.push({ ...base, locationId: w.B.locations[0]!.id });
    else forms.push({ ...base, locationId: w.A.locations[1]!.id });
    return forms;
  };
const integrationFields = { name: "Taken over", description: "", "scopes[]": ["locations.readonly"] };
/** The guard rails too, naming A's sub-accounts: B may not choose them for its own integrations. */
const guardRailFields = () => ({
  expires: "",
  subAccounts: "chosen",
  "subAccountIds[]": [w.A.locations[0]!.id],
  allowedIpAddresses: "127.0.0.1",
});
/** Each lifecycle action, with A's agency integration and A's sub-account integration. */
const bothLevels =
  (extra: Fields = {}) =>
  (attacker: Attacker) => [
    ...integrationForms("agency", extra)(attacker),
    ...integrationForms("location", extra)(attacker),
  ];
// Every lifecycle action of the catalogue is the screen's `<verb>Action`, at both levels.
const lifecycle = () => ({
  updateIntegrationAction: { forms: bothLevels(integrationFields) },
  ...Object.fromEntries(lifecycleKinds.map((kind) => [`${kind}Action`, { forms: bothLevels() }])),
});
const byB = (attacker: Attacker) => attacker === "B's owner";
const appFields = () => ({
  appId: w.A.app.app.id,
  companyId: w.A.company.id,
  name: "Taken over",
  description: "",
  redirectUris: "https://evil.example.test/cb",
  "scopes[]": ["contacts.readonly"],
  installSetting: "everyone",
  webhookUrl: "",
});
const authorizeFieldsOfA = () => ({
  response_type: "code",
  client_id: w.A.app.app.clientId,
  redirect_uri: testRedirectUri,
  state: "cross-tenant",
});

const actionCases: Record<string, Record<string, ActionCase>> = {
  // Both Private Integrations screens: a form with a locationId acts on that sub-account, one without
  // on the caller's own agency (so B's owner creating "for A" creates in B).
  "(admin)/_private-integrations/actions.ts": {
    createIntegrationAction: {
      forms: (a) => [
        { ...integrationFields, companyId: w.A.company.id },
        { locationId: w.A.locations[0]!.id, ...integrationFields },
        ...(byB(a) ? [] : [{ locationId: w.A.locations[1]!.id, ...integrationFields }]),
      ],
      outcome: (a, fields) => (byB(a) && !fields.locationId ? "own agency" : "refused"),
    },
    ...lifecycle(),
    // The guard rails with A's sub-accounts chosen: refused for B even on B's own agency integration.
    createIntegrationWithGuardRails: {
      action: "createIntegrationAction",
      forms: () => [{ ...integrationFields, ...guardRailFields(), companyId: w.A.company.id }],
    },
    updateIntegrationWithGuardRails: {
      action: "updateIntegrationAction",
      forms: (a) => bothLevels({ ...integrationFields, ...guardRailFields() })(a),
    },
    rotateIntegrationLaterWithOverlap: { action: "rotateLaterAction", forms: bothLevels({ overlapDays: "1" }) },
    // A read: refused means an error and none of A's counts in the answer.
    readUsageAction: { forms: bothLevels() },
    // Keys are each person's own: A's owner's key sent by another reaches nothing (A's token stays unshown).
    confirmShownAction: { forms: () => [{ idempotencyKey: aOwnersKey }], outcome: () => "own agency" },
    // No field for an agency: B's owner sets B's own maximum (A unchanged); A's member without the permission is refused.
    setMaximumLifetimeAction: {
      forms: () => [{ maximumTokenLifetimeDays: "1", companyId: w.A.company.id }],
      outcome: (a) => (byB(a) ? "own agency" : "refused"),
    },
  },
  "(admin)/developer/apps/[appId]/webhooks/actions.ts": {
    enableWebhookEndpointAction: { forms: () => [{ appId: w.A.app.app.id }] },
    redeliverFailedAction: { forms: () => [{ appId: w.A.app.app.id, since: "2000-01-01T00:00" }] },
    redeliverEvent: {
      forms: () => [
        { appId: w.A.app.app.id, eventId: w.A.eventId },
        { appId: w.B.app.app.id, eventId: w.A.eventId },
      ],
    },
  },
  "(admin)/developer/apps/actions.ts": {
    createAppAction: { forms: () => [appFields()], outcome: (a) => (byB(a) ? "own agency" : "refused") },
    updateAppAction: { forms: () => [appFields()] },
    rotateClientSecretAction: { forms: () => [{ appId: w.A.app.app.id, overlap: "7d" }] },
    revokePreviousClientSecretAction: { forms: () => [{ appId: w.A.app.app.id }] },
    rotateWebhookSecretAction: { forms: () => [{ appId: w.A.app.app.id }] },
    // A's app's keys: B's owner names A's app (and A's key through B's own app); A's member may not manage apps.
    addAppKeyAction: { forms: () => [{ appId: w.A.app.app.id, jwk: w.A.publicJwk }] },
    generateAppKeyPairAction: { forms: () => [{ appId: w.A.app.app.id, alg: "ES256" }] },
    setJwksUrlAction: {
      forms: () => [{ appId: w.A.app.app.id, jwksUrl: "https://keys.example.test/taken-over.json" }],
    },
    removeAppKeyAction: {
      forms: () => [
        { appId: w.A.app.app.id, keyId: w.A.appKeyId },
        { appId: w.B.app.app.id, keyId: w.A.appKeyId },
      ],
    },
  },
  "(admin)/marketplace/actions.ts": {
    uninstallAction: { forms: () => [{ installationId: w.A.installationId }] },
    approveUpdateAction: { forms: () => [{ installationId: w.A.installationId }] },
    declineUpdateAction: { forms: () => [{ installationId: w.A.installationId }] },
  },
  "(admin)/settings/labs/actions.ts": {
    toggleLabsFeature: {
      forms: () => [{ feature: "private_integrations", enabled: "false", companyId: w.A.company.id }],
      outcome: (a) => (byB(a) ? "own agency" : "refused"),
    },
  },
  "(admin)/settings/team/actions.ts": {
    addTeamMember: {
      forms: () => [
        {
          name: "Intruder",
          email: `intruder-${uniqueSuffix()}@example.test`,
          password: "intruder-password-123",
          role: "account_admin",
          "locationIds[]": [w.A.locations[0]!.id],
          companyId: w.A.company.id,
        },
      ],
    },
    changeRole: {
      forms: (): Fields[] => [
        { userId: w.A.member.id, role: "agency_admin" },
        { userId: w.A.sub.id, role: "account_admin", "locationIds[]": [w.A.locations[1]!.id] },
      ],
    },
    togglePermission: {
      forms: () => [
        { userId: w.A.member.id, permission: "agencyPrivateIntegrations", enabled: "false" },
        { userId: w.A.sub.id, permission: "locationPrivateIntegrations", enabled: "true" },
      ],
    },
    removeMember: { forms: () => [{ userId: w.A.member.id }, { userId: w.A.sub.id }] },
    // B's owner sets B's own policy (A unchanged); A's sub-account user is not an owner.
    switchRequireTwoFactor: {
      forms: () => [{ enabled: "true", companyId: w.A.company.id }],
      outcome: (a) => (byB(a) ? "own agency" : "refused"),
    },
    resetMemberPassword: { forms: () => [{ userId: w.A.member.id }, { userId: w.A.sub.id }] },
  },
  // Changes the caller's own password only: A's ids sent along are ignored, and A is unchanged.
  "(admin)/settings/account/actions.ts": {
    changePassword: {
      forms: () => [{ userId: w.A.member.id, currentPassword: "not-the-password", newPassword: "taken-over-123" }],
      outcome: (a) => (byB(a) ? "own agency" : "refused"),
    },
    // The caller's own switch only: A's ids sent along are ignored, A is unchanged. (A's own
    // sub-account user may switch their own, which is not another tenant's.)
    switchTokenEmails: {
      forms: (a) => (byB(a) ? [{ userId: w.A.member.id, enabled: "false" }] : []),
      outcome: () => "own agency",
    },
    // Two-factor, passkeys, sessions and Confirm it's you: the caller's own only; A's ids sent
    // along (A's member's passkey and session included) are never reached.
    ...ownAccountOnly({
      beginTotpSetupAction: () => ({ userId: w.A.member.id }),
      confirmTotpSetupAction: () => ({ userId: w.A.member.id, code: "123456" }),
      removeTotpAction: () => ({ userId: w.A.member.id }),
      regenerateRecoveryCodesAction: () => ({ userId: w.A.member.id }),
      passkeyRegistrationOptionsAction: () => ({ userId: w.A.member.id }),
      addPasskeyAction: () => ({ userId: w.A.member.id, name: "Taken over", response: "{}" }),
      removePasskeyAction: () => ({ passkeyId: w.A.passkeyId, userId: w.A.member.id }),
      signOutSessionAction: () => ({ sessionId: w.A.sessionId }),
      confirmIdentityAction: () => ({ userId: w.A.member.id, password: "not-the-password" }),
      passkeyConfirmOptionsAction: () => ({ userId: w.A.member.id }),
      confirmMethodAction: () => ({ userId: w.A.member.id }),
      // The key of an answer of A's owner: B's owner forgets only B's own answers.
      forgetShownAnswerAction: () => ({ idempotencyKey: aOwnersKey, userId: w.A.owner.id }),
    }),
  },
  // The caller's own notifications only.
  "(admin)/settings/notifications/actions.ts": {
    markAllNotificationsRead: {
      forms: (a) => (byB(a) ? [{ userId: w.A.member.id }] : []),
      outcome: () => "own agency",
    },
  },
  // Signed out: the options of a passkey prompt, for no one's data.
  "login/actions.ts": {
    passkeyOptionsAction: { forms: () => [{ userId: w.A.member.id }], outcome: () => "own agency" },
  },
  "oauth/chooselocation/actions.ts": {
    approveInstallAction: {
      forms: (a) =>
        byB(a)
          ? [
              { ...authorizeFieldsOfA(), level: "location", locationId: w.A.locations[0]!.id },
              { ...authorizeFieldsOfA(), level: "agency", "locationIds[]": [w.A.locations[0]!.id] },
            ]
          : [
              { ...authorizeFieldsOfA(), level: "location", locationId: w.A.locations[1]!.id },
              { ...authorizeFieldsOfA(), level: "agency", "locationIds[]": [w.A.locations[0]!.id] },
            ],
    },
    // Cancel only sends the browser back to the app with error=access_denied: it changes nothing.
    cancelInstallAction: { forms: () => [authorizeFieldsOfA()], outcome: () => "nothing to change" },
  },
};

/** Cases of actions on the signed-in person's own account: B's owner sends A's ids; A's own people have no case. */
function ownAccountOnly(cases: Record<string, () => Fields>): Record<string, ActionCase> {
  return Object.fromEntries(
    Object.entries(cases).map(([name, fields]) => [
      name,
      { forms: (a: Attacker) => (byB(a) ? [fields()] : []), outcome: () => "own agency" as const },
    ]),
  );
}

type Action = (prev: object, data: FormData) => Promise<{ ok?: boolean; error?: string; fieldErrors?: object }>;
async function actionsOf(file: string): Promise<Record<string, Action>> {
  const module = (await import(/* @vite-ignore */ resolve("app", file))) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(module).filter(([, v]) => typeof v === "function")) as Record<
    string,
    Action
  >;
}

/** Runs an action; a redirect (Next.js throws it) comes back as where it went. */
async function run(action: Action, fields: Fields) {
  try {
    return await action({}, formData(fields));
  } catch (error) {
    const digest = (error as { digest?: string }).digest ?? "";
    if (digest.startsWith("NEXT_REDIRECT")) return { redirectedTo: digest.split(";")[2] };
    throw error;
  }
}

describe("server actions", () => {
  it("every export of every app/**/actions.ts has a cross-tenant case", async () => {
    const files = appFilesNamed("actions.ts");
    expect(files.length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const file of files)
      for (const name of Object.keys(await actionsOf(file)))
        if (!actionCases[file]?.[name]) missing.push(`${file} ${name}`);
    expect(missing).toEqual([]);
  });

  const attackers: Attacker[] = ["B's owner", "A's sub-account user without the permission"];
  for (const [file, cases] of Object.entries(actionCases))
    for (const [name, testCase] of Object.entries(cases))
      for (const attacker of attackers)
        it(`${file} ${name}: ${attacker} with A's ids is refused`, async () => {
          const action = (await actionsOf(file))[testCase.action ?? name]!;
          signedIn = attacker === "B's owner" ? w.B.owner : w.A.sub;
          for (const fields of testCase.forms(attacker)) {
            const outcome = testCase.outcome?.(attacker, fields) ?? "refused";
            const watched = outcome === "own agency" ? [w.A.company.id] : [w.A.company.id, w.B.company.id];
            const result = await unchanged(() => run(action, fields), watched);
            if (outcome === "refused") {
              expect(result, JSON.stringify(fields)).not.toHaveProperty("redirectedTo");
              expect(result, JSON.stringify(fields)).not.toMatchObject({ ok: true });
              // Said in words: an error for the form, or one beside a field.
              const refusal = result as { error?: string; fieldErrors?: Record<string, string> };
              expect(refusal.error ?? Object.values(refusal.fieldErrors ?? {})[0], JSON.stringify(fields)).toMatch(
                /\w/,
              );
              expect(JSON.stringify(result)).not.toMatch(/pit-|secret/i);
            }
            if (outcome === "nothing to change")
              expect(result).toMatchObject({ redirectedTo: expect.stringContaining("error=access_denied") });
          }
        });

  it("what B's owner does to its 'own agency' stays in B", async () => {
    signedIn = w.B.owner;
    const labs = (await actionsOf("(admin)/settings/labs/actions.ts")).toggleLabsFeature!;
    await run(labs, { feature: "private_integrations", enabled: "true", companyId: w.A.company.id });
    const apps = await db().app.count({ where: { companyId: w.A.company.id, name: "Taken over" } });
    const integrations = await db().privateIntegration.count({
      where: { companyId: w.A.company.id, name: "Taken over" },
    });
    expect([apps, integrations]).toEqual([0, 0]);
  });
});

// ---------------------------------------------------------------------------------------------
// Routes

type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
interface RouteCase {
  /** The path with A's ids, for every method the file exports (the test client finds its route). */
  path(): string;
  /** Requests as B (and as A's sub-account) with A's ids: each must be refused. */
  requests(): RouteRequest[];
}
interface RouteRequest extends ApiRequest {
  label: string;
  method: Method;
  status: number[];
  /** When this request names other ids than the case's path. */
  path?: string;
}

/**
 * Routes that hold no tenant's data: those left to Next.js (scripts/route-table.ts says why each),
 * and every route whose served methods all declare `auth: "none"`: with no caller known there is no
 * tenant to reach. Each is still probed below (may answer 2xx; must change nothing, name no id of A).
 */
const fileOf = (path: string) => `${path.slice(1)}/route.ts`;
const tenantFree = new Set([
  ...Object.keys(leftToNext).map(fileOf),
  ...apiRoutes
    .filter((route) =>
      Object.values(route.handlers).every(
        (h) => h.unserved || (h.declaration && !isInternal(h.declaration) && h.declaration.auth === "none"),
      ),
    )
    .map((route) => fileOf(route.path)),
]);

const form2 = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
/** B's app's client credentials, as HTTP Basic. */
const bClient = () => ({ id: w.B.app.app.clientId, secret: w.B.app.clientSecret });
/** Requests of B's client sending each of A's tokens (to /oauth/revoke, /oauth/introspect). */
const bClientSendsTokensOfA = (label: string, status: number[]) =>
  [w.A.companyToken.refresh, w.A.companyToken.access, w.A.locationToken].map(
    (token): RouteRequest => ({ label, method: "POST", version: null, basic: bClient(), form: { token }, status }),
  );

/** The management API: B's integration with private-integrations.write, and B's app, on A's integrations. */
function managementCase(suffix: string, method: Method, body?: unknown): RouteCase {
  const path = () => `/private-integrations/${w.A.agencyIntegrationId}${suffix}`;
  const cases: [label: string, token: () => string, id: () => string, status: number[]][] = [
    [
      "B's agency private integration, A's agency integration",
      () => w.B.agencyPit,
      () => w.A.agencyIntegrationId,
      [404],
    ],
    [
      "B's agency private integration, A's sub-account integration",
      () => w.B.agencyPit,
      () => w.A.locationIntegrationId,
      [404],
    ],
    ["B's Company token, A's agency integration", () => w.B.companyToken, () => w.A.agencyIntegrationId, [403]],
  ];
  return {
    path,
    requests: () =>
      cases.map(
        ([label, token, id, status]): RouteRequest => ({
          label,
          method,
          path: `/private-integrations/${id()}${suffix}`,
          token: token(),
          ...(body === undefined ? {} : { json: body }),
          status,
        }),
      ),
  };
}

/**
 * Each lifecycle action of the catalogue on its own route (its method, and the body that asks for
 * it), added to the case of the route's file: a new action's route has its case by itself.
 */
function withLifecycleRoutes(cases: Record<string, RouteCase>): Record<string, RouteCase> {
  const all = { ...cases };
  for (const kind of lifecycleKinds) {
    const api: LifecycleApi = lifecycleActions[kind].api;
    const file = `${api.path.slice(1).replace("{id}", "[id]")}/route.ts`;
    const own = managementCase(api.path.replace("/private-integrations/{id}", ""), api.method, api.body);
    const known = all[file];
    all[file] = known ? { path: known.path, requests: () => [...known.requests(), ...own.requests()] } : own;
  }
  return all;
}

const routeCases: Record<string, RouteCase> = withLifecycleRoutes({
  "private-integrations/route.ts": {
    path: () => "/private-integrations",
    requests: () => [
      {
        label: "B's agency private integration lists A's sub-account",
        method: "GET",
        path: `/private-integrations?locationId=${w.A.locations[0]!.id}`,
        token: w.B.agencyPit,
        status: [404],
      },
      ...[w.B.agencyPit, w.B.companyToken].map(
        (token): RouteRequest => ({
          label: "B's token creates an integration in A's sub-account",
          method: "POST",
          token,
          json: { name: "Planted", scopes: ["locations.readonly"], locationId: w.A.locations[0]!.id },
          status: [403, 404],
        }),
      ),
    ],
  },
  "private-integrations/[id]/route.ts": managementCase("", "PATCH", { name: "Taken over" }),
  "private-integrations/[id]/usage/route.ts": managementCase("/usage", "GET"),
  "api/operator/route.ts": {
    path: () => "/api/operator",
    requests: () =>
      [w.B.companyToken, w.B.agencyPit].map((token) => ({
        label: "B's token as the operator key",
        method: "POST",
        version: null,
        token,
        json: {
          command: "labs:set",
          flags: { company: w.A.company.id, feature: "private-integrations", enabled: "false" },
        },
        // 401 for a key that is not the operator's; 403 where remote calls are closed altogether.
        status: [401, 403],
      })),
  },
  "contacts/route.ts": {
    path: () => "/contacts/",
    requests: () =>
      [
        ["B's Location token", w.B.locationToken],
        ["B's sub-account private integration", w.B.locationPit],
        ["A's sub-account token, A's other sub-account", w.A.locationToken],
      ].map(([label, token]) => ({
        label: label!,
        method: "POST",
        token,
        json: {
          firstName: "Eve",
          lastName: "Intruder",
          email: `eve-${uniqueSuffix()}@example.com`,
          phone: "+14155550123",
          locationId: label!.startsWith("A's") ? w.A.locations[1]!.id : w.A.locations[0]!.id,
        },
        status: [403, 404],
      })),
  },
  "contacts/[contactId]/route.ts": {
    path: () => `/contacts/${w.A.contactId}`,
    requests: () =>
      [w.B.locationToken, w.B.locationPit].map((token) => ({
        label: "B's token, A's contact",
        method: "GET",
        token,
        status: [403, 404],
      })),
  },
  "locations/[locationId]/route.ts": {
    path: () => `/locations/${w.A.locations[0]!.id}`,
    requests: () =>
      [
        ["B's Company token", w.B.companyToken, w.A.locations[0]!.id],
        ["B's Location token", w.B.locationToken, w.A.locations[0]!.id],
        ["B's agency private integration", w.B.agencyPit, w.A.locations[0]!.id],
        ["B's sub-account private integration", w.B.locationPit, w.A.locations[0]!.id],
        ["A's sub-account token, A's other sub-account", w.A.locationToken, w.A.locations[1]!.id],
      ].map(([label, token, locationId]) => ({
        label: label!,
        method: "GET",
        token,
        status: [403, 404],
        path: `/locations/${locationId}`,
      })),
  },
  "oauth/installedLocations/route.ts": {
    path: () => `/oauth/installedLocations?companyId=${w.A.company.id}`,
    requests: () =>
      [
        ["B's Company token", w.B.companyToken],
        ["B's agency private integration", w.B.agencyPit],
        ["A's sub-account token", w.A.locationToken],
      ].map(([label, token]) => ({ label: label!, method: "GET", token, status: [401, 403] })),
  },
  "oauth/locationToken/route.ts": {
    path: () => "/oauth/locationToken",
    requests: () =>
      [
        ["B's Company token, A's ids", w.B.companyToken, w.A.company.id],
        ["B's Company token, B's company and A's sub-account", w.B.companyToken, w.B.company.id],
        ["B's agency private integration", w.B.agencyPit, w.A.company.id],
        ["A's sub-account token", w.A.locationToken, w.A.company.id],
      ].map(([label, token, companyId]) => ({
        label: label!,
        method: "POST",
        token,
        form: { companyId: companyId!, locationId: w.A.locations[0]!.id },
        status: [401, 403],
      })),
  },
  "oauth/token/route.ts": {
    path: () => "/oauth/token",
    requests: () => [
      {
        label: "B's client redeems A's code",
        method: "POST",
        version: null,
        form: { ...codeGrant(w.B.app, w.A.pendingCode, "Company"), redirect_uri: testRedirectUri },
        status: [400],
      },
      {
        label: "B's client refreshes A's refresh token",
        method: "POST",
        version: null,
        basic: bClient(),
        form: { grant_type: "refresh_token", refresh_token: w.A.companyToken.refresh },
        status: [400],
      },
    ],
  },
  "oauth/revoke/route.ts": {
    path: () => "/oauth/revoke",
    // RFC 7009 §2.2: a token of another client is not revoked (refused, or 200 and left alone).
    requests: () => bClientSendsTokensOfA("B's client revokes A's token", [200, 400, 401, 403]),
  },
  "webhooks/events/route.ts": {
    path: () => "/webhooks/events",
    // B's app lists its own events only: never A's, also when asked to start after one of A's.
    requests: () =>
      ["/webhooks/events", `/webhooks/events?after=${w.A.eventId}`].map((path) => ({
        label: "B's client lists events",
        method: "GET",
        version: null,
        basic: bClient(),
        path,
        status: [200, 400, 404],
      })),
  },
  "oauth/introspect/route.ts": {
    path: () => "/oauth/introspect",
    requests: () => bClientSendsTokensOfA("B's client introspects A's token", [200]),
  },
});

/** One of a case's requests, through the route table (the route is the one `file` holds). */
async function callRoute(file: string, testCase: RouteCase, request: RouteRequest) {
  const { label: _label, method, status: _status, path = testCase.path(), ...sent } = request;
  const found = findRoute(path.split("?")[0] as string);
  expect(found && `${found.route.path.slice(1)}/route.ts`, `${method} ${path} reaches ${file}`).toBe(file);
  return api.send(method, path, sent).then(async (r) => ({ status: r.status, text: await r.text() }));
}

// ---------------------------------------------------------------------------------------------
// The probe: every method every route module exports, with each of B's four token kinds and A's
// ids in the path, the query and the body. The routes and their methods come from the modules
// themselves (app/**/route.ts), so a new route or a new method is probed without a line here.

/** The kinds of token B holds: a handler that forgets its scoping lets at least one of them through. */
type TokenKind =
  | "B's Company token"
  | "B's Location token"
  | "B's agency private integration"
  | "B's sub-account private integration";
const tokenKinds: TokenKind[] = [
  "B's Company token",
  "B's Location token",
  "B's agency private integration",
  "B's sub-account private integration",
];
const tokenOf = (kind: TokenKind): string =>
  ({
    "B's Company token": w.B.companyToken,
    "B's Location token": w.B.locationToken,
    "B's agency private integration": w.B.agencyPit,
    "B's sub-account private integration": w.B.locationPit,
  })[kind];

/** A's ids the probe puts wherever a request can name one. */
interface IdsOfA {
  /** `[id]` of /private-integrations/{id}: A's agency private integration. */
  id: string;
  companyId: string;
  locationId: string;
  contactId: string;
  eventId: string;
}
const idsOfA = (): IdsOfA => ({
  id: w.A.agencyIntegrationId,
  companyId: w.A.company.id,
  locationId: w.A.locations[0]!.id,
  contactId: w.A.contactId,
  eventId: w.A.eventId,
});

/**
 * The path a route file serves, with A's ids in its dynamic segments: `contacts/[contactId]/route.ts`
 * is `/contacts/<A's contact>`. A segment the probe has no id of A for fails the probe: give it one.
 */
function pathWithIdsOfA(file: string, ids: IdsOfA): { path: string; params: Record<string, string | string[]> } {
  const params: Record<string, string | string[]> = {};
  const parts = file
    .split("/")
    .slice(0, -1)
    .map((segment) => {
      const catchAll = /^\[\.\.\.(\w+)\]$/.exec(segment)?.[1];
      if (catchAll) {
        params[catchAll] = [ids.companyId, ids.locationId];
        return `${ids.companyId}/${ids.locationId}`;
      }
      const name = /^\[(\w+)\]$/.exec(segment)?.[1];
      if (!name) return segment;
      const id = (ids as unknown as Record<string, string | undefined>)[name];
      if (!id) throw new Error(`${file}: the probe has no id of A for [${name}]; add one to IdsOfA.`);
      params[name] = id;
      return id;
    });
  return { path: `/${parts.join("/")}`, params };
}

const probedMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The bodies a method with a body is sent: A's ids (and a valid contact) as JSON, and as a form. */
function bodiesWithIdsOfA(ids: IdsOfA): { contentType: string; body: string }[] {
  const fields = {
    ...ids,
    firstName: "Eve",
    lastName: "Intruder",
    email: `eve-${uniqueSuffix()}@example.com`,
    phone: "+14155550123",
  };
  return [
    { contentType: "application/json", body: JSON.stringify(fields) },
    { contentType: "application/x-www-form-urlencoded", body: form2(fields) },
  ];
}

interface ProbeOptions {
  /** Defaults to all four. */
  kinds?: TokenKind[];
  ids?: IdsOfA;
}

/**
 * Calls every method `module` exports as B, with A's ids, and returns what went wrong (empty: all
 * refused). A request is refused when it answers 4xx (OPTIONS: 204 without a body) and names no id
 * of A; neither agency's data may change. A tenant-free route may answer 2xx but is held to the rest.
 * A 429 proves nothing, so it is a failure too (the file raises the burst limit).
 */
async function probe(file: string, module: Record<string, unknown>, options: ProbeOptions = {}): Promise<string[]> {
  const ids = options.ids ?? idsOfA();
  const { path, params } = pathWithIdsOfA(file, ids);
  const query = new URLSearchParams({
    companyId: ids.companyId,
    locationId: ids.locationId,
    contactId: ids.contactId,
    after: ids.eventId,
  });
  const failures: string[] = [];
  const watched = [ids.companyId, w.B.company.id];
  // Both agencies are read before the first request and after the requests of each method and
  // token kind; each read is the next one's "before" (reading every row of both is the slow step).
  let before = await Promise.all(watched.map(snapshot));
  for (const method of probedMethods.filter((m) => typeof module[m] === "function")) {
    const handler = module[method] as Handler;
    for (const kind of options.kinds ?? tokenKinds) {
      const bodies = method === "GET" || method === "HEAD" ? [undefined] : bodiesWithIdsOfA(ids);
      const statuses: number[] = [];
      for (const sent of bodies) {
        const what = `${method} ${path} with ${kind}${sent ? ` (${sent.contentType})` : ""}`;
        const response = await handler(
          new Request(`http://localhost${path}?${query}`, {
            method,
            headers: asBearer(tokenOf(kind), sent ? { "content-type": sent.contentType } : {}),
            body: sent?.body,
          }),
          { params: Promise.resolve(params) },
        );
        const text = await response.text();
        statuses.push(response.status);
        if (response.status >= 500) failures.push(`${what}: answered ${response.status}`);
        else if (response.status === 429) failures.push(`${what}: rate limited, so it proved nothing`);
        else if (response.status < 400 && method === "OPTIONS") {
          // OPTIONS may answer 204 with the allowed methods and no body, or be refused.
          if (response.status !== 204 || text !== "")
            failures.push(`${what}: OPTIONS answered ${response.status} ${text}`);
        } else if (response.status < 400 && !tenantFree.has(file))
          failures.push(`${what}: answered ${response.status}`);
        // The catch-all 404 echoes the path it was asked for; nothing else may name A's ids.
        const named = Object.values(ids).filter((id) => text.includes(id));
        if (named.length > 0 && file !== "[...path]/route.ts") failures.push(`${what}: named A's ${named.join(", ")}`);
      }
      const after = await Promise.all(watched.map(snapshot));
      const what = `${method} ${path} with ${kind}`;
      if (after[0] !== before[0]) failures.push(`${what}: changed A's data (answered ${statuses.join(", ")})`);
      if (after[1] !== before[1]) failures.push(`${what}: changed B's data (answered ${statuses.join(", ")})`);
      before = after;
    }
  }
  return failures;
}

describe("routes", () => {
  it("every app/**/route.ts has a cross-tenant case or is tenant-free", () => {
    const files = appFilesNamed("route.ts");
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => !routeCases[f] && !tenantFree.has(f))).toEqual([]);
    expect([...tenantFree]).toEqual(expect.arrayContaining(["api/health/route.ts", "[...path]/route.ts"]));
    expect([...tenantFree]).not.toContain("oauth/token/route.ts");
  });

  for (const file of appFilesNamed("route.ts"))
    it(`${file}: every exported method, with each of B's four token kinds and A's ids, is refused`, async () => {
      const module = (await import(/* @vite-ignore */ resolve("app", file))) as Record<string, unknown>;
      expect(await probe(file, module)).toEqual([]);
    });

  for (const [file, testCase] of Object.entries(routeCases))
    it(`${file}: B's tokens with A's ids are refused, nothing changes`, async () => {
      for (const request of testCase.requests()) {
        const result = await unchanged(() => callRoute(file, testCase, request));
        expect(request.status, `${request.label}: ${result.text}`).toContain(result.status);
        for (const id of [w.A.contactId, w.A.company.id, ...w.A.locations.map((l) => l.id)])
          expect(result.text, request.label).not.toContain(id);
        if (file === "oauth/introspect/route.ts") expect(JSON.parse(result.text)).toEqual({ active: false });
        if (result.status >= 400) expect(JSON.parse(result.text)).toMatchObject({ error: expect.any(String) });
      }
    });

  /**
   * The probe proves something only if it fails a handler that ignores its scoping. Once, a
   * DELETE on /contacts/{id} that deletes whatever id it is given passed when the probe sent only
   * B's Company token (refused for its level before the handler ran). Plugged into the probe with
   * all four kinds, it fails; and a GET that reads any tenant's contact fails it too.
   */
  describe("a deliberately broken handler fails the probe", () => {
    const file = "contacts/[contactId]/route.ts";
    const declared = { ...contactGet.declaration, operationId: "brokenOnPurpose" } as Operation;
    const ignoresItsSubAccount = {
      DELETE: tokenRoute<{ contactId: string }>(
        { ...declared, scope: "contacts.write", level: "Location" },
        async (_r, context) => {
          await db().contact.delete({ where: { id: context.params.contactId } });
          return new Response(null, { status: 204 });
        },
      ),
      GET: tokenRoute<{ contactId: string }>(
        { ...declared, scope: "contacts.readonly", level: "Location" },
        async (_r, context) =>
          Response.json({ contact: await db().contact.findUnique({ where: { id: context.params.contactId } }) }),
      ),
    };
    async function aFreshContactOfA(): Promise<IdsOfA> {
      const created = await contactsPost(w.A.locationToken, w.A.locations[0]!.id);
      expect(created.status).toBe(201);
      return { ...idsOfA(), contactId: (created.body as { contact: { id: string } }).contact.id };
    }

    it("a DELETE that ignores its sub-account: caught with B's sub-account tokens, missed with B's Company token alone", async () => {
      const broken = { ...(await import("@/app/contacts/[contactId]/route")), DELETE: ignoresItsSubAccount.DELETE };
      expect(await probe(file, broken, { kinds: ["B's Company token"], ids: await aFreshContactOfA() })).toEqual([]);
      const failures = await probe(file, broken, { ids: await aFreshContactOfA() });
      expect(failures).toContainEqual(
        expect.stringMatching(/^DELETE .* with B's Location token: changed A's data \(answered 204/),
      );
      expect(failures.join("\n")).not.toMatch(/^GET /m);
    });

    it("a GET that reads any tenant's contact: caught with B's sub-account private integration (the only kind with contacts.readonly)", async () => {
      const broken = { ...(await import("@/app/contacts/[contactId]/route")), GET: ignoresItsSubAccount.GET };
      const failures = await probe(file, broken, { ids: await aFreshContactOfA() });
      expect(failures).toContainEqual(
        expect.stringMatching(/^GET .* with B's sub-account private integration: answered 200/),
      );
      expect(failures).toContainEqual(
        expect.stringMatching(/^GET .* with B's sub-account private integration: named A's /),
      );
    });
  });

  it("after all that, A's tokens and its pending code still work", async () => {
    const own = await api.get(`/locations/${w.A.locations[0]!.id}`, { token: w.A.locationToken });
    expect(own.status).toBe(200);
    const redeemed = await api.post("/oauth/token", {
      form: codeGrant(w.A.app, w.A.pendingCode, "Company"),
      version: null,
    });
    expect(redeemed.status).toBe(200);
  });
});
