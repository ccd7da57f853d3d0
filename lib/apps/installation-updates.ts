import { z } from "zod";
import type { Tx } from "@/lib/db/client";
import type { Prisma, UserType } from "@/lib/generated/prisma/client";
import { enqueueWebhookEvents } from "@/lib/webhooks/outbox";

/**
 * Moving an installation to a newer version of its app (SPEC.md › Apps that grow without
 * reinstalls): on approval of a version that adds scopes, and at once for a version that only
 * removes some. One function, used inside the caller's transaction, so the installation's new
 * grant, its grants' widened scopes and the `INSTALLATION_UPDATED` event commit together.
 */

export interface InstallationForUpdate {
  id: string;
  appId: string;
  versionId: string;
  userType: UserType;
  companyId: string;
  locationId: string | null;
  scopes: string[];
}

export interface VersionForUpdate {
  id: string;
  scopes: string[];
}

/** The scopes of `next` that `current` lacks, and those of `current` that `next` drops, in their own order. */
export function scopeChanges(
  current: readonly string[],
  next: readonly string[],
): { added: string[]; removed: string[] } {
  const had = new Set(current);
  const has = new Set(next);
  return { added: next.filter((s) => !had.has(s)), removed: current.filter((s) => !has.has(s)) };
}

/** The `INSTALLATION_UPDATED` body of SPEC.md (without `webhookId`, which the outbox adds). */
export function installationUpdatedPayload(
  installation: InstallationForUpdate,
  next: { versionId: string; scopes: string[] },
  userId: string,
  now: Date,
) {
  return {
    type: "INSTALLATION_UPDATED",
    appId: installation.appId,
    versionId: next.versionId,
    previousVersionId: installation.versionId,
    installType: installation.userType,
    companyId: installation.companyId,
    ...(installation.userType === "Location" && installation.locationId ? { locationId: installation.locationId } : {}),
    scopes: next.scopes,
    previousScopes: installation.scopes,
    userId,
    timestamp: now.toISOString(),
  };
}

/**
 * Gives `installation` the grant `next` (a version, or for an installation still behind an added
 * scope, its narrowed scopes on its own version): the row, every live grant made from it (widened
 * by the added scopes, so the next refresh and /oauth/locationToken carry them; removed scopes are
 * cut by verification and by each grant's intersection with the installation), and the event.
 * Callers run it inside `changeCachedState`; the `Installation` scopes trigger tells other instances.
 */
export async function moveInstallation(
  tx: Tx,
  installation: InstallationForUpdate,
  next: { versionId: string; scopes: string[] },
  context: { webhookUrl: string | null; userId: string; now: Date },
): Promise<void> {
  const { added } = scopeChanges(installation.scopes, next.scopes);
  await tx.installation.update({
    where: { id: installation.id },
    data: { versionId: next.versionId, scopes: next.scopes, declinedVersionId: null },
  });
  if (added.length > 0) {
    await tx.$executeRaw`
      UPDATE "TokenGrant" SET scopes = scopes || ARRAY(
        SELECT s FROM unnest(${added}::text[]) WITH ORDINALITY AS x(s, n) WHERE NOT (s = ANY(scopes)) ORDER BY n)
      WHERE "installationId" = ${installation.id} AND "revokedAt" IS NULL`;
  }
  if (context.webhookUrl) {
    await enqueueWebhookEvents(
      tx,
      [
        {
          appId: installation.appId,
          type: "INSTALLATION_UPDATED",
          targetUrl: context.webhookUrl,
          payload: installationUpdatedPayload(installation, next, context.userId, context.now),
        },
      ],
      context.now,
    );
  }
}

export const installationForUpdateSelect = {
  id: true,
  appId: true,
  versionId: true,
  userType: true,
  companyId: true,
  locationId: true,
  scopes: true,
} satisfies Prisma.InstallationSelect;

/**
 * A version that only removes scopes applies to every installation at once (no consent needed to
 * lose access). An installation still behind a version that added scopes keeps its version and
 * only loses the removed scopes; every other one moves to `version`. `userId` is the publisher.
 */
export async function applyRemovalToInstallations(
  tx: Tx,
  app: { id: string; webhookUrl: string | null },
  version: VersionForUpdate,
  userId: string,
  now: Date,
): Promise<number> {
  // Locked first (then read fresh), so an approval committing meanwhile is read, not overwritten.
  await tx.$executeRaw`SELECT 1 FROM "Installation" WHERE "appId" = ${app.id} AND status = 'installed' FOR UPDATE`;
  const installations = await tx.installation.findMany({
    where: { appId: app.id, status: "installed" },
    select: installationForUpdateSelect,
    orderBy: { id: "asc" },
  });
  let moved = 0;
  for (const installation of installations) {
    const { added } = scopeChanges(installation.scopes, version.scopes);
    const next =
      added.length === 0
        ? { versionId: version.id, scopes: version.scopes }
        : { versionId: installation.versionId, scopes: installation.scopes.filter((s) => version.scopes.includes(s)) };
    if (next.versionId === installation.versionId && next.scopes.length === installation.scopes.length) continue;
    await moveInstallation(tx, installation, next, { webhookUrl: app.webhookUrl, userId, now });
    moved += 1;
  }
  return moved;
}

/** The `INSTALLATION_UPDATED` event's body, for the OpenAPI document's `webhooks`. */
export const installationUpdatedEventSchema = z
  .object({
    type: z.literal("INSTALLATION_UPDATED"),
    appId: z.string(),
    versionId: z.string().meta({ description: "The version the installation runs now (tokens carry it)." }),
    previousVersionId: z.string(),
    installType: z.enum(["Company", "Location"]).meta({
      description: "Company: an agency install (one event, no locationId); Location: a sub-account install.",
    }),
    companyId: z.string(),
    locationId: z.string().optional().meta({ description: "Sub-account installs only." }),
    scopes: z.array(z.string()).meta({ description: "The installation's whole grant now." }),
    previousScopes: z.array(z.string()).meta({ description: "Its whole grant before." }),
    userId: z.string().meta({
      description: "Who approved the update; for a version that only removes scopes, who published it.",
    }),
    timestamp: z.iso.datetime(),
    webhookId: z.uuid().meta({ description: "The event's id: the webhook-id header." }),
  })
  .meta({
    description:
      "An installation moved to a newer version of the app: an admin of the place approved a version that adds scopes, or a version that only removes scopes applied at once. Signed and listed by GET /webhooks/events like every event.",
    examples: [
      {
        type: "INSTALLATION_UPDATED",
        appId: "cm3x5app0000001",
        versionId: "cm3x5ver0000002",
        previousVersionId: "cm3x5ver0000001",
        installType: "Location",
        companyId: "cm3x5cmp0000001",
        locationId: "cm3x5loc0000001",
        scopes: ["contacts.readonly", "contacts.write"],
        previousScopes: ["contacts.readonly"],
        userId: "cm3x5usr0000001",
        timestamp: "2026-01-15T09:30:00.000Z",
        webhookId: "0d4f1a2e-7b9c-4c1e-9f3e-5a6b7c8d9e0f",
      },
    ],
  });
