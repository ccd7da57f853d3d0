// The stress run's fixtures: a fresh database, an agency with an app (its world), codes, webhook
// events, and two HTTP calls.
import { createCompany } from "@/lib/accounts/companies";
import { setLabsFeature } from "@/lib/accounts/labs";
import type { Actor } from "@/lib/accounts/permissions";
import { createUser } from "@/lib/accounts/users";
import { createApp } from "@/lib/apps/registry";
import { databaseHandle, db, disconnectDb } from "@/lib/db/client";
import { deployMigrationsFor } from "@/lib/db/migrations";
import { resetEnvCache } from "@/lib/env";
import { approveInstall } from "@/lib/oauth/authorize/approve";
import { createLocation } from "@/lib/provisioning/create-location";
import { redirectUri } from "./context";
import type { SlowReceiver } from "./instances";

export async function openFreshDatabase(url: string) {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetEnvCache();
  await deployMigrationsFor(databaseHandle());
}

export interface World {
  owner: Actor;
  /** The owner's password, for signing in to the screens over HTTP. */
  ownerPassword: string;
  companyId: string;
  locationIds: string[];
  client: { clientId: string; clientSecret: string };
}

export const suffix = () => Math.random().toString(36).slice(2, 8);

/** An agency with sub-accounts, its owner, and an app without a webhook (for the token races). */
const ownerPassword = "stress-owner-password";

export async function makeWorld(locations: number): Promise<World> {
  const company = await createCompany({ name: `Stress agency ${suffix()}` });
  const locationIds: string[] = [];
  for (let i = 0; i < locations; i++)
    locationIds.push((await createLocation({ companyId: company.id, name: `Sub-account ${i + 1}` })).id);
  const owner = await createUser({
    email: `owner-${suffix()}@stress.test`,
    password: ownerPassword,
    name: "Stress Owner",
    role: "agency_owner",
    companyId: company.id,
  });
  await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: true });
  const app = await createApp({
    companyId: company.id,
    name: `Stress app ${suffix()}`,
    redirectUris: [redirectUri],
    scopes: ["oauth.readonly", "oauth.write", "locations.readonly", "contacts.write"],
    installSetting: "everyone",
  });
  return {
    owner,
    ownerPassword,
    companyId: company.id,
    locationIds,
    client: { clientId: app.app.clientId, clientSecret: app.clientSecret },
  };
}

export async function issueCode(world: World, clientId = world.client.clientId): Promise<string> {
  const approved = await approveInstall({
    actor: world.owner,
    params: { response_type: "code", client_id: clientId, redirect_uri: redirectUri, state: "s" },
    target: { level: "agency", locationIds: world.locationIds.slice(0, 2) },
  });
  return approved.code;
}

/** Installs an app whose webhook goes to `receiver` on `count` sub-accounts: `count` INSTALL events. */
export async function enqueueInstallEvents(world: World, receiver: SlowReceiver, count: number): Promise<Set<string>> {
  const locations: string[] = [];
  for (let i = 0; i < count; i++)
    locations.push((await createLocation({ companyId: world.companyId, name: `Hooked ${i + 1}` })).id);
  const app = await createApp({
    companyId: world.companyId,
    name: `Hooked app ${suffix()}`,
    redirectUris: [redirectUri],
    scopes: ["locations.readonly"],
    installSetting: "everyone",
    webhookUrl: receiver.url,
  });
  await approveInstall({
    actor: world.owner,
    params: { response_type: "code", client_id: app.app.clientId, redirect_uri: redirectUri, state: "s" },
    target: { level: "agency", locationIds: locations },
  });
  const events = await db().webhookEvent.findMany({ where: { appId: app.app.id }, select: { id: true } });
  return new Set(events.map((e) => e.id));
}

export async function postForm(base: string, path: string, form: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, string>;
  return { status: res.status, body };
}

export async function getLocation(base: string, locationId: string, token: string): Promise<number> {
  const res = await fetch(`${base}/locations/${locationId}`, {
    headers: { authorization: `Bearer ${token}`, version: "2021-07-28" },
  });
  await res.arrayBuffer();
  return res.status;
}
