import { type AppRow, type AppView, toAppView } from "@/lib/apps/app-view";
import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import type { StoredSecrets } from "./client-secret";

/**
 * An app by its public client_id, with the current version and the secrets it may accept (the
 * current one and the previous one with its end: ./client-secret.ts); undefined when there is none.
 */
export async function findAppByClientId(clientId: string): Promise<(AppView & StoredSecrets) | undefined> {
  if (!clientId || clientId.length > 200) return undefined;
  // One statement (the query builder takes two for the newest version): every token request
  // authenticates its client here, and each statement costs the server more than its database time.
  const rows = await db().$queryRaw<
    (Omit<AppRow, "versions"> &
      Omit<StoredSecrets, "previousClientSecretExpiresAt"> & {
        previousClientSecretExpiresAt: Date | string | null;
        versionId: string | null;
      })[]
  >`${PREPARED}
    SELECT a.id, a."companyId", a.name, a.description, a."clientId", a."clientSecretHint", a."clientSecretHash",
           a."previousClientSecretHash", a."previousClientSecretExpiresAt",
           a."redirectUris", a.scopes, a."installSetting"::text AS "installSetting", a."webhookUrl",
           a."createdAt", a."updatedAt",
           (SELECT v.id FROM "AppVersion" v WHERE v."appId" = a.id
            ORDER BY v."createdAt" DESC, v.id DESC LIMIT 1) AS "versionId"
    FROM "App" a WHERE a."clientId" = ${clientId}`;
  const row = rows[0];
  if (!row) return undefined;
  const { clientSecretHash, previousClientSecretHash, previousClientSecretExpiresAt, versionId, ...rest } = row;
  return {
    ...toAppView({
      ...rest,
      createdAt: new Date(rest.createdAt),
      updatedAt: new Date(rest.updatedAt),
      versions: versionId ? [{ id: versionId }] : [],
    }),
    clientSecretHash,
    previousClientSecretHash,
    previousClientSecretExpiresAt:
      previousClientSecretExpiresAt === null ? null : new Date(previousClientSecretExpiresAt),
  };
}
