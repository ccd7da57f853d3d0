import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * Claiming due outbox rows is one statement, `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP
 * LOCKED)`, that sets a lease (`lockedUntil`) and a claim token: instances sharing PostgreSQL never
 * claim the same row at once, and a row claimed by an instance that died (SIGKILL, crash, lost
 * network) becomes due again when its lease ends. An attempt records its outcome only while its
 * claim token still holds (lib/webhooks/deliver.ts).
 */

/** Longer than an attempt can take (10 s timeout plus database time), so a live claim never lapses. */
export const LEASE_MS = 60_000;

export interface ClaimedEvent {
  id: string;
  appId: string;
  type: string;
  /** The payload as compact JSON in the order stored (json column), sent and signed byte for byte. */
  body: string;
  targetUrl: string;
  /** Attempts already made in this retry series. */
  attempts: number;
  retryStartedAt: Date;
  claimToken: string;
}

export interface ClaimOptions {
  now?: Date;
  limit?: number;
  leaseMs?: number;
  /** Only events of these apps (tests share one database; production claims everything). */
  appIds?: string[];
}

/** Claims up to `limit` due events for this instance (see the module comment). */
export async function claimDueEvents(options: ClaimOptions = {}): Promise<ClaimedEvent[]> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 10;
  const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? LEASE_MS));
  const claimToken = randomUUID();
  const onlyApps =
    options.appIds === undefined
      ? Prisma.empty
      : options.appIds.length === 0
        ? Prisma.sql`AND false`
        : Prisma.sql`AND "appId" IN (${Prisma.join(options.appIds)})`;
  const rows = await db().$queryRaw<Omit<ClaimedEvent, "claimToken">[]>`
    UPDATE "WebhookEvent"
    SET "lockedUntil" = ${leaseUntil}, "claimToken" = ${claimToken}
    WHERE "id" IN (
      SELECT "id" FROM "WebhookEvent"
      WHERE "status" = 'pending'
        AND "nextAttemptAt" <= ${now}
        AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${now})
        ${onlyApps}
        -- A disabled endpoint gets no attempts until Enable (lib/webhooks/endpoint-health.ts).
        AND NOT EXISTS (SELECT 1 FROM "App" a WHERE a.id = "WebhookEvent"."appId" AND a."webhookDisabledAt" IS NOT NULL)
      ORDER BY "nextAttemptAt"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "appId", "type", "payload"::text AS "body", "targetUrl", "attempts", "retryStartedAt"`;
  // Compact JSON (SPEC.md: JSON.stringify(JSON.parse(body)) === body), keys in the order written;
  // the same string is signed and sent.
  return rows.map((row) => ({
    ...row,
    body: JSON.stringify(JSON.parse(row.body)),
    attempts: Number(row.attempts),
    claimToken,
  }));
}
