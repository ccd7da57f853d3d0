import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { scopeChanges } from "./installation-updates";
import { loadOwnApp } from "./registry";

/**
 * An app's published versions for its developer page (`Versions`): each with its date and the
 * scopes it added and removed against the version before it, and how many installations run the
 * newest one.
 */

export interface AppVersionEntry {
  id: string;
  createdAt: Date;
  scopes: string[];
  added: string[];
  removed: string[];
}

export interface AppVersions {
  /** Newest first. */
  versions: AppVersionEntry[];
  /** Installations (installed, not uninstalled) of the app. */
  installations: number;
  /** Of those, how many run the newest version. */
  onNewestVersion: number;
}

/** Each version with what it changed against the one before it (the first: everything added). */
export function describeVersions(oldestFirst: { id: string; createdAt: Date; scopes: string[] }[]): AppVersionEntry[] {
  const entries = oldestFirst.map((version, i) => ({
    ...version,
    ...scopeChanges(oldestFirst[i - 1]?.scopes ?? [], version.scopes),
  }));
  return entries.reverse();
}

export async function listAppVersions(appId: string, actor: Actor): Promise<AppVersions> {
  return db().$transaction(async (tx) => {
    await loadOwnApp(tx, appId, actor);
    const rows = await tx.appVersion.findMany({
      where: { appId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, createdAt: true, scopes: true },
    });
    const versions = describeVersions(rows);
    const newest = versions[0]?.id ?? "";
    const installations = await tx.installation.count({ where: { appId, status: "installed" } });
    const onNewestVersion = await tx.installation.count({ where: { appId, status: "installed", versionId: newest } });
    return { versions, installations, onNewestVersion };
  });
}
