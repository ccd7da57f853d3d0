import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * The outbox as the metrics read it at each scrape (lib/metrics: `webhook_events_pending`,
 * `webhook_oldest_pending_seconds`): one statement whose two parts each walk the
 * ("status", "nextAttemptAt") index the dispatcher claims by.
 * - pending: every event waiting for a first attempt or a retry;
 * - the oldest due: the earliest `nextAttemptAt` that has passed among events whose endpoint is not
 *   disabled, i.e. how far the dispatchers are behind. An event waiting out its backoff is not
 *   late, and a disabled endpoint's events wait for Enable, not for the dispatchers.
 */
export interface Backlog {
  pending: number;
  /** Seconds since the oldest due event became due; 0 when none is due. */
  oldestDueSeconds: number;
}

export interface BacklogOptions {
  now?: Date;
  /** Only these apps' events (tests share one database; production reads the whole outbox). */
  appIds?: string[];
}

export async function webhookBacklog(options: BacklogOptions = {}): Promise<Backlog> {
  const now = options.now ?? new Date();
  const onlyApps =
    options.appIds === undefined ? Prisma.empty : Prisma.sql`AND "appId" IN (${Prisma.join(options.appIds)})`;
  const [row] = await db().$queryRaw<{ pending: number; oldestDue: Date | null }[]>`
    SELECT
      (SELECT count(*)::int FROM "WebhookEvent" WHERE "status" = 'pending' ${onlyApps}) AS "pending",
      (SELECT e."nextAttemptAt" FROM "WebhookEvent" e
        WHERE e."status" = 'pending' AND e."nextAttemptAt" <= ${now} ${onlyApps}
          AND NOT EXISTS (SELECT 1 FROM "App" a WHERE a.id = e."appId" AND a."webhookDisabledAt" IS NOT NULL)
        ORDER BY e."nextAttemptAt" LIMIT 1) AS "oldestDue"`;
  const oldestDue = row?.oldestDue;
  return {
    pending: row?.pending ?? 0,
    oldestDueSeconds: oldestDue ? Math.max(0, (now.getTime() - oldestDue.getTime()) / 1000) : 0,
  };
}
