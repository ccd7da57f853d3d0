import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin } from "@/lib/accounts/roles";
import {
  type InstallationForUpdate,
  installationForUpdateSelect,
  moveInstallation,
  scopeChanges,
} from "@/lib/apps/installation-updates";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import type { Prisma, PrismaClient, UserType } from "@/lib/generated/prisma/client";
import { conflict, forbidden, notFound } from "@/lib/refusal";
import { canApproveUpdate } from "./authorize/install-choice";

/**
 * Consent to a new version of an installed app (SPEC.md › Apps that grow without reinstalls): an
 * installation whose app published a version adding scopes stays on its version, with its tokens
 * working as before, until an admin of the place it is installed approves (moving it straight to
 * the newest version) or declines (hiding the update until a newer version).
 */

export interface PendingUpdate {
  installationId: string;
  appId: string;
  appName: string;
  userType: UserType;
  /** Sub-account installs: the sub-account. */
  location: { id: string; name: string } | null;
  /** The newest version, which approval moves the installation to. */
  versionId: string;
  publishedAt: Date;
  /** The newest version's scopes: the installation's whole grant once approved. */
  scopes: string[];
  added: string[];
  removed: string[];
}

const pendingSelect = {
  ...installationForUpdateSelect,
  declinedVersionId: true,
  status: true,
  app: {
    select: {
      name: true,
      installSetting: true,
      webhookUrl: true,
      versions: {
        orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
        take: 1,
        select: { id: true, scopes: true, createdAt: true },
      },
    },
  },
  location: { select: { id: true, name: true } },
} satisfies Prisma.InstallationSelect;

type PendingRow = InstallationForUpdate & {
  declinedVersionId: string | null;
  status: string;
  app: {
    name: string;
    installSetting: "agency_only" | "everyone";
    webhookUrl: string | null;
    versions: { id: string; scopes: string[]; createdAt: Date }[];
  };
  location: { id: string; name: string } | null;
};

/** The update waiting for consent on this installation, if any (the newest version adds scopes it lacks). */
function pendingOf(row: PendingRow, options: { includeDeclined: boolean }): PendingUpdate | undefined {
  const newest = row.app.versions[0];
  if (!newest || newest.id === row.versionId) return undefined;
  if (!options.includeDeclined && row.declinedVersionId === newest.id) return undefined;
  const { added, removed } = scopeChanges(row.scopes, newest.scopes);
  if (added.length === 0) return undefined;
  return {
    installationId: row.id,
    appId: row.appId,
    appName: row.app.name,
    userType: row.userType,
    location: row.userType === "Location" ? row.location : null,
    versionId: newest.id,
    publishedAt: newest.createdAt,
    scopes: newest.scopes,
    added,
    removed,
  };
}

/** The updates this person may review, for `/marketplace` (declined ones are not shown again). */
export async function listPendingUpdates(actor: Actor): Promise<PendingUpdate[]> {
  const rows = await db().installation.findMany({
    where: {
      companyId: actor.companyId,
      status: "installed",
      ...(isAgencyAdmin(actor.role) ? {} : { userType: "Location", locationId: { in: actor.locationIds } }),
    },
    select: pendingSelect,
    orderBy: [{ id: "asc" }],
    take: 500,
  });
  return rows
    .filter((row) => canApproveUpdate(actor, row))
    .map((row) => pendingOf(row, { includeDeclined: false }))
    .filter((u): u is PendingUpdate => u !== undefined);
}

async function loadForReview(actor: Actor, installationId: string, tx: Tx | PrismaClient = db()): Promise<PendingRow> {
  const row = await tx.installation.findUnique({ where: { id: installationId }, select: pendingSelect });
  // Another agency's installation is "not found", so ids reveal nothing.
  if (!row || row.companyId !== actor.companyId) {
    throw notFound("This app is not installed here.");
  }
  if (!canApproveUpdate(actor, row)) {
    throw forbidden(
      row.userType === "Company"
        ? "Only the agency's owners and admins can review updates of apps installed for the agency."
        : "Only the agency's owners and admins, or this sub-account's admins, can review updates of its apps.",
    );
  }
  return row;
}

/** The `Review update` screen: the update of this installation, or undefined when there is none. */
export async function getPendingUpdate(actor: Actor, installationId: string): Promise<PendingUpdate | undefined> {
  const row = await loadForReview(actor, installationId);
  if (row.declinedVersionId && row.declinedVersionId === row.app.versions[0]?.id) return undefined;
  return pendingOf(row, { includeDeclined: true });
}

/**
 * Approve: the installation moves to the newest version (from however many versions behind) in
 * one transaction with its `INSTALLATION_UPDATED` outbox row; its live grants get the added
 * scopes, so the next refresh and /oauth/locationToken carry them.
 */
export async function approveUpdate(options: {
  actor: Actor;
  installationId: string;
  now?: Date;
}): Promise<{ versionId: string; scopes: string[] }> {
  const now = options.now ?? new Date();
  return changeCachedState(() =>
    db().$transaction(async (tx) => {
      // Locked, so two approvals (or an approval and an uninstall) come one after the other.
      await tx.$executeRaw`SELECT 1 FROM "Installation" WHERE id = ${options.installationId} FOR UPDATE`;
      const row = await loadForReview(options.actor, options.installationId, tx);
      if (row.status !== "installed") throw notFound("This app is not installed here.");
      const update = pendingOf(row, { includeDeclined: true });
      if (!update) throw conflict("This installation already runs the newest version of the app.");
      const next = { versionId: update.versionId, scopes: update.scopes };
      await moveInstallation(tx, row, next, { webhookUrl: row.app.webhookUrl, userId: options.actor.id, now });
      await auditReview(tx, options.actor, row, update, "app_update_approved");
      return next;
    }),
  );
}

/** Decline: the installation stays on its version; the update is not offered again until a newer version. */
export async function declineUpdate(options: { actor: Actor; installationId: string }): Promise<void> {
  const row = await loadForReview(options.actor, options.installationId);
  const update = pendingOf(row, { includeDeclined: true });
  if (!update) throw conflict("This installation has no update waiting.");
  await db().$transaction(async (tx) => {
    await tx.installation.update({ where: { id: row.id }, data: { declinedVersionId: update.versionId } });
    await auditReview(tx, options.actor, row, update, "app_update_declined");
  });
}

/** Who approved or declined which version of which app, where: in the transaction that acts on it. */
function auditReview(
  tx: Tx,
  actor: Actor,
  row: PendingRow,
  update: PendingUpdate,
  action: "app_update_approved" | "app_update_declined",
): Promise<void> {
  return recordAudit(tx, {
    companyId: row.companyId,
    locationId: row.locationId,
    actorUserId: actor.id,
    action,
    targetId: row.id,
    details: {
      appId: row.appId,
      appName: row.app.name,
      fromVersionId: row.versionId,
      toVersionId: update.versionId,
      added: update.added,
      removed: update.removed,
    },
  });
}
