import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin } from "@/lib/accounts/roles";
import { hashSecret, lastFour, randomHex, randomSecret } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { newRowId } from "@/lib/db/row-id";
import { forbidden, notFound } from "@/lib/refusal";
import { newWebhookSecret, webhookSecretColumns } from "@/lib/webhooks/webhook-secret";
import { type AppView, appSelect, toAppView } from "./app-view";
import { applyRemovalToInstallations, scopeChanges } from "./installation-updates";
import { type AppUpdate, appUpdateSchema, checkWebhookTarget, type NewApp, newAppSchema, parseInput } from "./settings";

/**
 * Marketplace apps: what a developer registers (redirect URIs, scopes, who can install, webhook
 * URL) and the client credentials. The client secret is shown once, at creation and at each
 * regeneration, and stored only as a keyed hash. The webhook secret is shown once too (at creation
 * and at each rotation) and kept encrypted, since the server signs every delivery with it.
 */

/** Developers of an agency's apps: its owners and admins. */
export function canManageApps(actor: Actor, companyId: string): boolean {
  return actor.companyId === companyId && isAgencyAdmin(actor.role);
}

function assertCanManage(actor: Actor | undefined, companyId: string): void {
  if (actor && !canManageApps(actor, companyId)) {
    throw forbidden("Only the agency's owners and admins can create and change its apps.");
  }
}

/**
 * `<appId>-<8 hex>`, the platform's shape: its SDK reads the app id as `clientId.split('-')[0]`
 * (app ids are cuids, which have no `-`).
 */
export function clientIdFor(appId: string): string {
  return `${appId}-${randomHex(4)}`;
}

export function newClientSecret(): string {
  return randomSecret(32);
}

export interface CreatedApp {
  app: AppView;
  /** Shown once; only its keyed hash is kept. */
  clientSecret: string;
  /** `whsec_…`, shown once; kept encrypted (it signs every delivery). */
  webhookSecret: string;
}

/** Registers an app with its first version. `actor` is absent for the operator CLI. */
export async function createApp(input: NewApp, actor?: Actor): Promise<CreatedApp> {
  const data = parseInput(newAppSchema, input);
  assertCanManage(actor, data.companyId);
  await checkWebhookTarget(data.webhookUrl);
  const company = await db().company.findUnique({ where: { id: data.companyId }, select: { id: true } });
  if (!company) throw notFound(`There is no agency with id ${data.companyId}.`);
  const clientSecret = newClientSecret();
  const webhookSecret = newWebhookSecret();
  // The id is chosen here because the client id is made from it.
  const id = newRowId();
  const app = await db().$transaction(async (tx) => {
    const created = await tx.app.create({
      data: {
        id,
        companyId: data.companyId,
        name: data.name,
        description: data.description,
        clientId: clientIdFor(id),
        ...webhookSecretColumns(webhookSecret),
        clientSecretHash: hashSecret(clientSecret),
        clientSecretHint: lastFour(clientSecret),
        redirectUris: data.redirectUris,
        scopes: data.scopes,
        installSetting: data.installSetting,
        webhookUrl: data.webhookUrl,
        versions: { create: { scopes: data.scopes } },
      },
      select: appSelect,
    });
    await recordAudit(tx, {
      companyId: data.companyId,
      actorUserId: actor?.id,
      action: "app_created",
      targetId: created.id,
      details: { name: created.name, installSetting: created.installSetting, scopes: created.scopes },
    });
    return created;
  });
  return { app: toAppView(app), clientSecret, webhookSecret };
}

export async function loadOwnApp(tx: Tx, appId: string, actor: Actor | undefined) {
  const app = await tx.app.findUnique({ where: { id: appId }, select: appSelect });
  // Another agency's app is "not found" to a developer, so ids of others' apps reveal nothing.
  if (!app || (actor && actor.companyId !== app.companyId)) throw notFound("There is no such app in your agency.");
  assertCanManage(actor, app.companyId);
  return app;
}

/**
 * Changes an app's settings. Changed scopes publish a new version (SPEC.md › Apps that grow
 * without reinstalls): new installs and re-installs get it; an installation moves to a version
 * that adds scopes when its admins approve (lib/oauth/app-updates.ts), and to one that only
 * removes scopes at once, here, in the same transaction (its tokens lose them at once).
 */
export async function updateApp(appId: string, input: AppUpdate, actor?: Actor, now = new Date()): Promise<AppView> {
  const data = parseInput(appUpdateSchema, input);
  // Resolving the host waits on DNS: outside the transaction, and only for someone who may manage apps.
  if (actor) assertCanManage(actor, actor.companyId);
  await checkWebhookTarget(data.webhookUrl);
  // A removal reaches cached verifications: bypass and empty this instance's cache around it.
  return changeCachedState(() => db().$transaction((tx) => updateAppInTransaction(tx, appId, data, actor, now)));
}

async function updateAppInTransaction(
  tx: Tx,
  appId: string,
  data: AppUpdate,
  actor: Actor | undefined,
  now: Date,
): Promise<AppView> {
  const before = await loadOwnApp(tx, appId, actor);
  // Concurrent edits of one app publish one version after the other. NO KEY: an approval writing
  // its event (a row referencing the app) in the meantime must not wait on this lock (deadlock).
  await tx.$executeRaw`SELECT 1 FROM "App" WHERE id = ${appId} FOR NO KEY UPDATE`;
  const newest = await tx.appVersion.findFirst({
    where: { appId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { scopes: true },
  });
  const previousScopes = newest?.scopes ?? before.scopes;
  const changes = data.scopes ? scopeChanges(previousScopes, data.scopes) : { added: [], removed: [] };
  if (data.scopes && (changes.added.length > 0 || changes.removed.length > 0)) {
    const version = await tx.appVersion.create({
      data: { appId, scopes: data.scopes, createdAt: now },
      select: { id: true, scopes: true },
    });
    if (changes.added.length === 0) {
      await applyRemovalToInstallations(
        tx,
        { id: appId, webhookUrl: data.webhookUrl !== undefined ? data.webhookUrl : before.webhookUrl },
        version,
        actor?.id ?? "operator",
        now,
      );
    }
  }
  const after = await tx.app.update({
    where: { id: appId },
    data: {
      name: data.name,
      description: data.description,
      redirectUris: data.redirectUris,
      scopes: data.scopes,
      installSetting: data.installSetting,
      webhookUrl: data.webhookUrl,
    },
    select: appSelect,
  });
  const changed = (Object.keys(data) as (keyof typeof data)[]).filter(
    (k) => data[k] !== undefined && JSON.stringify(data[k]) !== JSON.stringify(before[k]),
  );
  await recordAudit(tx, {
    companyId: after.companyId,
    actorUserId: actor?.id,
    action: "app_updated",
    targetId: appId,
    details: { changed },
  });
  return toAppView(after);
}

/** The apps an agency develops, newest first. */
export async function listDeveloperApps(actor: Actor): Promise<AppView[]> {
  if (!canManageApps(actor, actor.companyId)) {
    throw forbidden("Only the agency's owners and admins can see and manage its apps.");
  }
  const rows = await db().app.findMany({
    where: { companyId: actor.companyId },
    select: appSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(toAppView);
}

export async function getDeveloperApp(appId: string, actor: Actor): Promise<AppView> {
  return db().$transaction(async (tx) => toAppView(await loadOwnApp(tx, appId, actor)));
}
