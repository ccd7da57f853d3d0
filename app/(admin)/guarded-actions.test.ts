import { exportJWK, generateKeyPair as joseKeyPair } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { generateKeyPair } from "@/lib/apps/keys";
import { rotateClientSecret } from "@/lib/apps/secrets";
import { beginTotpSetup, confirmTotpSetup } from "@/lib/auth/two-factor/authenticator-app";
import { totpCodeAt } from "@/lib/auth/two-factor/totp";
import { db } from "@/lib/db/client";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";
import { makeIntegration } from "@/lib/testing/integrations";
import { makeApp } from "@/lib/testing/oauth";

/**
 * SPEC.md › Confirm it's you: showing or changing a credential needs an authentication in the last
 * 10 minutes, and the server enforces it. Every action SPEC names is replayed here by a session
 * that last authenticated 11 minutes ago: each answers `confirmIdentity` and nothing changes; the
 * same request from a session that just authenticated goes through.
 */
const session = vi.hoisted(() => ({ actor: null as Actor | null, authenticatedAgoMs: 0, mustSetUpTwoFactor: false }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () =>
    session.actor
      ? { ...signedInAs(session.actor, session.authenticatedAgoMs), mustSetUpTwoFactor: session.mustSetUpTwoFactor }
      : null,
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const integrations = await import("@/app/(admin)/_private-integrations/actions");
const team = await import("@/app/(admin)/settings/team/actions");
const apps = await import("@/app/(admin)/developer/apps/actions");
const account = await import("@/app/(admin)/settings/account/actions");

type Action = (prev: object, form: FormData) => Promise<{ ok?: boolean; confirmIdentity?: boolean; error?: string }>;

let w: { agency: TestAgency; member: Actor; integrationId: string; appId: string; keyId: string; publicJwk: string };

/** An agency with one of each credential a guarded action shows or changes; its owner has an authenticator app. */
async function agencyWithCredentials() {
  const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const owner = { ...agency.owner, agencyPrivateIntegrations: true };
  await db().user.update({ where: { id: owner.id }, data: { agencyPrivateIntegrations: true } });
  const member = await makeUser(agency.company.id, "agency_user");
  const { integration } = await makeIntegration({ owner }, { name: "Guarded" });
  const app = await makeApp(agency.company.id);
  // A previous client secret inside its overlap, for `Revoke previous secret` to stop.
  await rotateClientSecret(app.app.id, { overlap: "7d" }, owner);
  // A key of the app for `Remove`, and a public key of another pair for `Add public key`.
  const { key } = await generateKeyPair(app.app.id);
  const publicJwk = JSON.stringify(await exportJWK((await joseKeyPair("ES256")).publicKey));
  const { secret } = await beginTotpSetup(owner);
  const before = new Date(Date.now() - 60_000);
  await confirmTotpSetup(owner.id, totpCodeAt(secret, before), before);
  return {
    agency: { ...agency, owner },
    member,
    integrationId: integration.id,
    appId: app.app.id,
    keyId: key.id,
    publicJwk,
  };
}

beforeAll(async () => {
  w = await agencyWithCredentials();
});

/** Everything a guarded action could change, read back. */
async function everything(): Promise<string> {
  const companyId = w.agency.company.id;
  const rows = await Promise.all([
    db().auditLog.count({ where: { companyId } }),
    db().company.findUnique({ where: { id: companyId } }),
    db().privateIntegration.findMany({ where: { companyId }, include: { tokens: true }, orderBy: { id: "asc" } }),
    db().user.findMany({ where: { companyId }, orderBy: { id: "asc" } }),
    db().app.findMany({ where: { companyId }, orderBy: { id: "asc" } }),
    db().appKey.findMany({ where: { app: { companyId } }, orderBy: { id: "asc" } }),
    db().totpFactor.findMany({ where: { userId: w.agency.owner.id } }),
    db().recoveryCode.findMany({ where: { userId: w.agency.owner.id }, orderBy: { id: "asc" } }),
  ]);
  return JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v));
}

/** Each action SPEC lists under Confirm it's you, with a form that would change something. */
const guarded: [string, () => Action, () => Record<string, string | string[]>][] = [
  [
    "create a private integration",
    () => integrations.createIntegrationAction as Action,
    () => ({ name: "New", description: "", "scopes[]": ["locations.readonly"], expires: "" }),
  ],
  [
    "rotate later",
    () => integrations.rotateLaterAction as Action,
    () => ({ integrationId: w.integrationId, overlapDays: "7" }),
  ],
  ["rotate now", () => integrations.rotateNowAction as Action, () => ({ integrationId: w.integrationId })],
  ["delete", () => integrations.removeAction as Action, () => ({ integrationId: w.integrationId })],
  [
    "Save maximum",
    () => integrations.setMaximumLifetimeAction as Action,
    () => ({ maximumTokenLifetimeDays: "30", confirmed: "yes" }),
  ],
  [
    "a member's permission",
    () => team.togglePermission as Action,
    () => ({ userId: w.member.id, permission: "agencyPrivateIntegrations", enabled: "true" }),
  ],
  ["a member's role", () => team.changeRole as Action, () => ({ userId: w.member.id, role: "agency_admin" })],
  ["Remove a member", () => team.removeMember as Action, () => ({ userId: w.member.id })],
  ["Reset password", () => team.resetMemberPassword as Action, () => ({ userId: w.member.id })],
  [
    "an app's new client secret",
    () => apps.rotateClientSecretAction as Action,
    () => ({ appId: w.appId, overlap: "1h" }),
  ],
  [
    "revoke an app's previous client secret",
    () => apps.revokePreviousClientSecretAction as Action,
    () => ({ appId: w.appId }),
  ],
  ["an app's new webhook secret", () => apps.rotateWebhookSecretAction as Action, () => ({ appId: w.appId })],
  ["add an app's public key", () => apps.addAppKeyAction as Action, () => ({ appId: w.appId, jwk: w.publicJwk })],
  [
    "generate an app's key pair",
    () => apps.generateAppKeyPairAction as Action,
    () => ({ appId: w.appId, alg: "ES256" }),
  ],
  [
    "an app's JWKS URL",
    () => apps.setJwksUrlAction as Action,
    () => ({ appId: w.appId, jwksUrl: "https://keys.example.test/jwks.json" }),
  ],
  ["remove an app's key", () => apps.removeAppKeyAction as Action, () => ({ appId: w.appId, keyId: w.keyId })],
  ["regenerate recovery codes", () => account.regenerateRecoveryCodesAction as Action, () => ({})],
  ["remove the authenticator app", () => account.removeTotpAction as Action, () => ({})],
];

describe("Confirm it's you, enforced by the server", () => {
  it.each(guarded)("%s: refused without a recent authentication, and nothing changes", async (_, action, fields) => {
    session.actor = w.agency.owner;
    session.authenticatedAgoMs = 11 * 60_000;
    const before = await everything();
    const answer = await action()({}, formData(fields()));
    expect(answer).toMatchObject({ confirmIdentity: true });
    expect(answer.ok).toBeUndefined();
    expect(await everything()).toBe(before);
  });

  it.each(guarded)("%s: goes through right after an authentication", async (_, action, fields) => {
    w = await agencyWithCredentials();
    session.actor = w.agency.owner;
    session.authenticatedAgoMs = 1000;
    const answer = await action()({}, formData(fields()));
    expect(answer.confirmIdentity).toBeUndefined();
    expect(answer).toMatchObject({ ok: true });
  });
});

describe("Require two-factor authentication, enforced by the server", () => {
  it("refuses every action but setting up a factor to a member who has none yet", async () => {
    w = await agencyWithCredentials();
    session.actor = w.agency.owner;
    session.authenticatedAgoMs = 0;
    session.mustSetUpTwoFactor = true;
    try {
      const before = await everything();
      for (const [, action, fields] of guarded) {
        const answer = await action()({}, formData(fields()));
        expect(answer.error).toMatch(/requires two-factor authentication/);
      }
      expect(await everything()).toBe(before);
      const setup = await (account.beginTotpSetupAction as Action)({}, formData({}));
      // The owner here already has an app: the set-up itself ran, and says so.
      expect(setup.error ?? "").not.toMatch(/requires two-factor/);
    } finally {
      session.mustSetUpTwoFactor = false;
    }
  });
});
