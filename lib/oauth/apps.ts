import { randomBytes } from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin } from "@/lib/accounts/roles";
import { hashSecret, lastFour, randomHex, randomSecret } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { forbidden, invalid, notFound } from "@/lib/errors";
import type { InstallSetting, Prisma } from "@/lib/generated/prisma/client";
import { isScope, type Scope, scopesForLevel } from "@/lib/scopes";
import {
  newWebhookSecret,
  PREVIOUS_WEBHOOK_SECRET_GRACE_MS,
  webhookSecretColumns,
} from "@/lib/webhooks/webhook-secret";
import { redirectUriProblem, webhookUrlProblem } from "./redirect-uris";

/**
 * Marketplace apps: what a developer registers (redirect URIs, scopes, who can install, webhook
 * URL) and the client credentials. The client secret is shown once, at creation and at each
 * regeneration, and stored only as a keyed hash. The webhook secret is shown once too (at creation
 * and at each rotation) and kept encrypted, since the server signs every delivery with it.
 */

export const installSettings = ["agency_only", "everyone"] as const satisfies readonly InstallSetting[];
export const installSettingLabels: Record<InstallSetting, string> = {
  agency_only: "Agency only",
  everyone: "Everyone",
};

const nameSchema = z
  .string()
  .trim()
  .min(1, { error: "Enter the app's name." })
  .max(100, { error: "Use a name of at most 100 characters." });
const descriptionSchema = z.string().trim().max(1000, { error: "Use a description of at most 1000 characters." });
const redirectUrisSchema = z
  .array(z.string().trim())
  .transform((uris) => [...new Set(uris.filter(Boolean))])
  .check((ctx) => {
    if (ctx.value.length === 0) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: "Add at least one redirect URI." });
    }
    if (ctx.value.length > 10) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: "Register at most 10 redirect URIs." });
    }
    for (const uri of ctx.value) {
      const problem = redirectUriProblem(uri);
      if (problem) ctx.issues.push({ code: "custom", input: uri, message: problem });
    }
  });
const scopesSchema = z
  .array(z.string().trim())
  .transform((names) => [...new Set(names.filter(Boolean))])
  .check((ctx) => {
    if (ctx.value.length === 0) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: "Choose at least one scope." });
    }
    for (const name of ctx.value) {
      if (!isScope(name)) {
        ctx.issues.push({ code: "custom", input: name, message: `"${name.slice(0, 60)}" is not a known scope.` });
      }
    }
  })
  .transform((names) => sortScopes(names as Scope[]));
const installSettingSchema = z.enum(installSettings, {
  error: () => "Choose who can install: agency_only (Agency only) or everyone (Everyone).",
});
const webhookUrlSchema = z
  .string()
  .trim()
  .nullish()
  .transform((v) => v || null)
  .check((ctx) => {
    const problem = ctx.value ? webhookUrlProblem(ctx.value) : undefined;
    if (problem) ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
  });

export const newAppSchema = z.object({
  companyId: z.string().min(1, { error: "Choose the developer agency." }),
  name: nameSchema,
  description: descriptionSchema.default(""),
  redirectUris: redirectUrisSchema,
  scopes: scopesSchema,
  installSetting: installSettingSchema,
  webhookUrl: webhookUrlSchema,
});
export type NewApp = z.input<typeof newAppSchema>;

export const appUpdateSchema = z.object({
  name: nameSchema.optional(),
  description: descriptionSchema.optional(),
  redirectUris: redirectUrisSchema.optional(),
  scopes: scopesSchema.optional(),
  installSetting: installSettingSchema.optional(),
  webhookUrl: webhookUrlSchema.optional(),
});
export type AppUpdate = z.input<typeof appUpdateSchema>;

/** Catalog order: agency scopes first, as the catalog lists them. */
function sortScopes(scopes: Scope[]): Scope[] {
  const order = new Map<string, number>();
  [...scopesForLevel("agency"), ...scopesForLevel("location")].forEach((s, i) => {
    if (!order.has(s)) order.set(s, i);
  });
  return [...scopes].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/** The first zod issue as a DomainError naming the field. */
function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path[0] === undefined ? undefined : String(issue.path[0]);
  throw invalid(issue?.message ?? "The app's settings are invalid.", field);
}

/** Everything about an app except its secret hash. */
export const appSelect = {
  id: true,
  companyId: true,
  name: true,
  description: true,
  clientId: true,
  clientSecretHint: true,
  redirectUris: true,
  scopes: true,
  installSetting: true,
  webhookUrl: true,
  createdAt: true,
  updatedAt: true,
  versions: {
    orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
    take: 1,
    select: { id: true as const },
  },
} satisfies Prisma.AppSelect;

export interface AppView {
  id: string;
  companyId: string;
  name: string;
  description: string;
  clientId: string;
  clientSecretHint: string;
  redirectUris: string[];
  scopes: Scope[];
  installSetting: InstallSetting;
  webhookUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The current (newest) version; tokens carry it as versionId. */
  versionId: string;
}

type AppRow = {
  versions: { id: string }[];
  scopes: string[];
} & Omit<AppView, "versionId" | "scopes">;

export function toAppView(row: AppRow): AppView {
  const { versions, ...rest } = row;
  return { ...rest, scopes: rest.scopes.filter(isScope), versionId: versions[0]?.id ?? "" };
}

/** Developers of an agency's apps: its owners and admins. */
export function canManageApps(actor: Actor, companyId: string): boolean {
  return actor.companyId === companyId && isAgencyAdmin(actor.role);
}

function assertCanManage(actor: Actor | undefined, companyId: string): void {
  if (actor && !canManageApps(actor, companyId)) {
    throw forbidden("Only the agency's owners and admins can create and change its apps.");
  }
}

/** A cuid-shaped id (`c` and 24 lowercase letters or digits, no `-`), like those Prisma makes. */
function createId(): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
  let id = "c";
  while (id.length < 25) {
    for (const byte of randomBytes(32)) {
      // 252 = 7 × 36: dropping the last few byte values keeps every character equally likely.
      if (byte < 252 && id.length < 25) id += alphabet[byte % 36];
    }
  }
  return id;
}

/**
 * `<appId>-<8 hex>`, the platform's shape: its SDK reads the app id as `clientId.split('-')[0]`
 * (app ids are cuids, which have no `-`).
 */
export function clientIdFor(appId: string): string {
  return `${appId}-${randomHex(4)}`;
}

function newClientSecret(): string {
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
  const company = await db().company.findUnique({ where: { id: data.companyId }, select: { id: true } });
  if (!company) throw notFound(`There is no agency with id ${data.companyId}.`);
  const clientSecret = newClientSecret();
  const webhookSecret = newWebhookSecret();
  // The id is chosen here because the client id is made from it.
  const id = createId();
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

async function loadOwnApp(tx: Tx, appId: string, actor: Actor | undefined) {
  const app = await tx.app.findUnique({ where: { id: appId }, select: appSelect });
  // Another agency's app is "not found" to a developer, so ids of others' apps reveal nothing.
  if (!app || (actor && actor.companyId !== app.companyId)) throw notFound("There is no such app in your agency.");
  assertCanManage(actor, app.companyId);
  return app;
}

/**
 * Changes an app's settings. Changed scopes make a new version (new installs and re-installs are
 * granted the new scopes; existing installations keep what they were granted).
 */
export async function updateApp(appId: string, input: AppUpdate, actor?: Actor): Promise<AppView> {
  const data = parseInput(appUpdateSchema, input);
  return db().$transaction(async (tx) => {
    const before = await loadOwnApp(tx, appId, actor);
    const scopesChanged = data.scopes !== undefined && data.scopes.join(" ") !== before.scopes.join(" ");
    if (scopesChanged) await tx.appVersion.create({ data: { appId, scopes: data.scopes } });
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
  });
}

/** A new client secret, shown once; the old one stops working at once. */
export async function regenerateClientSecret(
  appId: string,
  actor?: Actor,
): Promise<{ clientSecret: string; clientSecretHint: string }> {
  const clientSecret = newClientSecret();
  await db().$transaction(async (tx) => {
    const app = await loadOwnApp(tx, appId, actor);
    await tx.app.update({
      where: { id: appId },
      data: { clientSecretHash: hashSecret(clientSecret), clientSecretHint: lastFour(clientSecret) },
    });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_secret_regenerated",
      targetId: appId,
    });
  });
  return { clientSecret, clientSecretHint: lastFour(clientSecret) };
}

export interface RotatedWebhookSecret {
  /** The new `whsec_…` secret, shown this once. */
  webhookSecret: string;
  webhookSecretHint: string;
  /** Until when the secret it replaces keeps signing beside it (null when there was none). */
  previousSignsUntil: Date | null;
}

/**
 * A new webhook secret, shown once. Deliveries are signed with both (two `v1,` signatures) for
 * 24 hours from `now`, so the receiver can switch to the new one without losing an event.
 */
export async function rotateWebhookSecret(
  appId: string,
  actor?: Actor,
  now = new Date(),
): Promise<RotatedWebhookSecret> {
  const webhookSecret = newWebhookSecret();
  const columns = webhookSecretColumns(webhookSecret);
  const previousSignsUntil = await db().$transaction(async (tx) => {
    const app = await loadOwnApp(tx, appId, actor);
    const current = await tx.app.findUniqueOrThrow({
      where: { id: appId },
      select: { webhookSecretEncrypted: true },
    });
    const until = current.webhookSecretEncrypted ? new Date(now.getTime() + PREVIOUS_WEBHOOK_SECRET_GRACE_MS) : null;
    await tx.app.update({
      where: { id: appId },
      data: {
        ...columns,
        previousWebhookSecretEncrypted: current.webhookSecretEncrypted,
        previousWebhookSecretExpiresAt: until,
      },
    });
    await recordAudit(tx, {
      companyId: app.companyId,
      actorUserId: actor?.id,
      action: "app_webhook_secret_rotated",
      targetId: appId,
    });
    return until;
  });
  return { webhookSecret, webhookSecretHint: columns.webhookSecretHint, previousSignsUntil };
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

/** An app by its public client_id, with the current version; undefined when there is none. */
export async function findAppByClientId(
  clientId: string,
): Promise<(AppView & { clientSecretHash: string }) | undefined> {
  if (!clientId || clientId.length > 200) return undefined;
  // One statement (the query builder takes two for the newest version): every token request
  // authenticates its client here, and each statement costs the server more than its database time.
  const rows = await db().$queryRaw<
    (Omit<AppRow, "versions"> & { clientSecretHash: string; versionId: string | null })[]
  >`
    SELECT a.id, a."companyId", a.name, a.description, a."clientId", a."clientSecretHint", a."clientSecretHash",
           a."redirectUris", a.scopes, a."installSetting"::text AS "installSetting", a."webhookUrl",
           a."createdAt", a."updatedAt",
           (SELECT v.id FROM "AppVersion" v WHERE v."appId" = a.id
            ORDER BY v."createdAt" DESC, v.id DESC LIMIT 1) AS "versionId"
    FROM "App" a WHERE a."clientId" = ${clientId}`;
  const row = rows[0];
  if (!row) return undefined;
  const { clientSecretHash, versionId, ...rest } = row;
  return {
    ...toAppView({
      ...rest,
      createdAt: new Date(rest.createdAt),
      updatedAt: new Date(rest.updatedAt),
      versions: versionId ? [{ id: versionId }] : [],
    }),
    clientSecretHash,
  };
}
