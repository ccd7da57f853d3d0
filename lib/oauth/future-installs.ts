import { recordAudit } from "@/lib/accounts/audit";
import type { Tx } from "@/lib/db/client";
import { enqueueInstallEvents } from "./install-events";

/**
 * SPEC.md "Install to future sub-accounts": when an agency-level install chose all sub-accounts
 * and "Also install on sub-accounts created later", a sub-account created later joins the
 * installation's approved sub-accounts at once (so /oauth/installedLocations lists it and
 * /oauth/locationToken works for it) and an INSTALL event (installType Location) is written for it.
 *
 * Runs in the transaction that creates the sub-account (lib/provisioning/create-location.ts), so the
 * sub-account, its installs and their outbox rows commit together or not at all. Idempotent: a
 * second run for the same sub-account (a retry, another instance) adds no row and no event, because
 * an event is written only for an InstallationLocation row this run actually inserted.
 */

export interface NewSubAccount {
  id: string;
  companyId: string;
}

interface FutureInstallation {
  id: string;
}

/** Returns the ids of the installations the sub-account joined. */
export async function installAppsOnNewSubAccount(tx: Tx, location: NewSubAccount, now: Date): Promise<string[]> {
  // Row locks: an uninstall or a re-install of the same installation running now either commits
  // first (and this re-reads its flags: READ COMMITTED re-checks the WHERE of a locked row) or waits
  // for this transaction. Locked in id order so two callers never deadlock.
  const candidates = await tx.$queryRaw<FutureInstallation[]>`
    SELECT id FROM "Installation"
    WHERE "companyId" = ${location.companyId} AND "userType" = 'Company' AND status = 'installed'
      AND "approveAllLocations" AND "installToFutureLocations"
    ORDER BY id
    FOR UPDATE`;
  if (candidates.length === 0) return [];

  const joined: string[] = [];
  for (const { id } of candidates) {
    const inserted = await tx.$queryRaw<{ installationId: string }[]>`
      INSERT INTO "InstallationLocation" ("installationId", "locationId")
      VALUES (${id}, ${location.id})
      ON CONFLICT DO NOTHING
      RETURNING "installationId"`;
    if (inserted.length === 1) joined.push(id);
  }
  if (joined.length === 0) return [];

  const company = await tx.company.findUniqueOrThrow({
    where: { id: location.companyId },
    select: { id: true, name: true, whitelabelDomain: true, whitelabelLogoUrl: true },
  });
  const installations = await tx.installation.findMany({
    where: { id: { in: joined } },
    select: {
      id: true,
      versionId: true,
      installedByUserId: true,
      app: { select: { id: true, name: true, webhookUrl: true } },
    },
    orderBy: { id: "asc" },
  });
  for (const installation of installations) {
    // The event names the person who made the agency install: the app was installed by their choice.
    const ctx = {
      app: installation.app,
      versionId: installation.versionId,
      company,
      userId: installation.installedByUserId,
    };
    await enqueueInstallEvents(tx, "INSTALL", ctx, { company: false, locationIds: [location.id] }, now);
    await recordAudit(tx, {
      companyId: location.companyId,
      locationId: location.id,
      action: "app_installed",
      targetId: installation.id,
      details: {
        appId: installation.app.id,
        appName: installation.app.name,
        userType: "Company",
        locationIds: [location.id],
        installToFutureLocations: true,
      },
    });
  }
  return joined;
}
