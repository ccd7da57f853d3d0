import { db, type Tx } from "@/lib/db/client";
import { env } from "@/lib/env";
import { Prisma } from "@/lib/generated/prisma/client";
import { describeError, log } from "@/lib/log";
import { webhookEventRetentionCutoff } from "@/lib/webhooks/retention";

/**
 * The pruner: deletes rows that can no longer change any answer, in small batches, so the tables
 * stay bounded under steady issuing. Started with the server (instrumentation.ts) every
 * PRUNE_INTERVAL_SECONDS (0: off on this instance).
 *
 * How long each kind of row is kept, and why (also in README, Configuration):
 *
 * - Access tokens: 5 minutes past `exp`. Verification refuses an expired token before it reads the
 *   row (and a missing row is refused too), revocation of an unknown jti answers 200 as before and
 *   introspection says inactive either way. The 5 minutes only cover clock skew between instances.
 * - Authorization codes: 7 days past their expiry (codes live 10 minutes). A consumed code presented
 *   again revokes what it issued (RFC 6749 §4.1.2), and that works on an expired code too: a code
 *   that leaked (browser history, a proxy log) is typically replayed within minutes or hours, and a
 *   week is far beyond that. After it the code answers "not valid" (still invalid_grant) and the
 *   grant it issued stays: the leaked code itself can never issue anything.
 * - Refresh tokens, consumed or not: 1 day past their own expiry (365 days after issue). Reuse
 *   detection (a rotated token presented after REFRESH_TOKEN_REUSE_SECONDS revokes its family) needs
 *   the consumed row, so it is kept for the token's whole life: within it, nothing of SPEC.md's
 *   contract changes. A token past its life answers "not valid" instead of revoking the family; it
 *   could never be redeemed either way. This bounds a family to the rotations of its last year.
 *   No shorter horizon is safe without weakening reuse detection: the replay of a stolen token is
 *   detected only while its consumed row exists.
 * - Grants: once their last refresh token has been pruned (so every token they issued expired a
 *   year ago), or 30 days after they were revoked, with every token of theirs (in batches: tokens
 *   first, then the grant). A revoked family has nothing left to revoke, so its consumed tokens
 *   only serve the error message ("revoked" instead of "not valid") that a developer may see while
 *   debugging: 30 days of it. Location grants (`parentGrantId`, no foreign key) are revoked with
 *   their parent, so a revoked parent's children go with it. A parent that goes because its tokens
 *   expired may leave live children: nothing could reach them through it any more (reuse and
 *   RFC 7009 revocation need a refresh token of the parent, code replay needs its code, gone
 *   after 7 days), and uninstall revokes children by installation.
 * - Private-integration tokens that left their integration (revoked, or replaced after their
 *   rotation overlap): 30 days after they stopped working (the longest rotation overlap is 30 days,
 *   and the stop moment is `revokedAt` or `expiresAt`, whichever came first). Live tokens, including
 *   a `previous` token still in its overlap, are never touched; the lifecycle owns the slots.
 * - Webhook events with their delivery logs: delivered or failed ones created more than
 *   WEBHOOK_EVENT_RETENTION_DAYS ago (lib/webhooks/retention.ts, SPEC.md "kept at least 30 days").
 *   Pending ones are still in a retry series (or a Redeliver) and stay. GET /webhooks/events stays
 *   consistent: its cursor is a position, not a row, so a page after a pruned event still follows
 *   on, and `after=<webhookId>` of a pruned event is the 400 that already names the retention.
 *
 * Mechanics. Each batch is one short transaction: it takes `pg_try_advisory_xact_lock`, selects up
 * to `batchSize` ids with the index of its condition, and deletes them, re-checking the condition
 * (a Redeliver may have made a failed event pending meanwhile). A batch that finds the lock held
 * stops this run: another instance is pruning. Batches repeat while full, with a short pause, so
 * the pruner never holds locks or a snapshot for long (a long transaction would also hold back
 * GET /webhooks/events, which waits for every older transaction). Every row it deletes stopped
 * mattering long before the read cache's 900 ms lifetime, so its batches send no NOTIFY token_state
 * (which would empty every instance's cache several times a second while a backlog drains): they
 * set `maintenance.prune`, which the trigger function reads.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** How long past the moment a row stopped mattering it is kept. See the module comment. */
export const PRUNE_HORIZONS = {
  accessTokenPastExpiryMs: 5 * MINUTE_MS,
  codePastExpiryMs: 7 * DAY_MS,
  refreshTokenPastExpiryMs: DAY_MS,
  revokedGrantMs: 30 * DAY_MS,
  integrationTokenStoppedMs: 30 * DAY_MS,
} as const;

export const PRUNE_BATCH_SIZE = 500;
export const PRUNE_PAUSE_MS = 100;
/** Delay of the first run after the server starts, so that it does not compete with startup. */
const FIRST_RUN_DELAY_MS = 15_000;

export interface PruneOptions {
  /** The clock. */
  now?: Date;
  batchSize?: number;
  /** Pause between two batches. */
  pauseMs?: number;
  /** Only rows of these agencies (tests sharing a database); production prunes everything. */
  companyIds?: string[];
  /** Checked between batches: a stopping server ends the run early. */
  stopped?: () => boolean;
}

export interface PruneSummary {
  accessTokens: number;
  refreshTokens: number;
  grants: number;
  codes: number;
  integrationTokens: number;
  webhookEvents: number;
  batches: number;
  /** Another instance held the lock: this run did nothing more. */
  skipped: boolean;
}

type Counts = Omit<PruneSummary, "batches" | "skipped">;

interface Step {
  name: string;
  /** One batch in `tx`: returns how many rows it looked at (full batch: run again) and what it deleted. */
  run(tx: Tx, limit: number): Promise<{ selected: number; deleted: Partial<Counts> }>;
}

const LOCK = "maintenance:prune";
/** A batch may wait for a busy database (PGlite has one connection) rather than fail the run. */
const BATCH_TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

function scoped(companyIds: string[] | undefined, sql: Prisma.Sql): Prisma.Sql {
  return companyIds ? sql : Prisma.empty;
}

function steps(now: Date, companyIds: string[] | undefined): Step[] {
  const ids = companyIds ?? [];
  const grantScope = (column: Prisma.Sql) =>
    scoped(
      companyIds,
      Prisma.sql`AND ${column} IN (SELECT id FROM "TokenGrant" WHERE "companyId" = ANY(${ids}::text[]))`,
    );
  const accessCut = new Date(now.getTime() - PRUNE_HORIZONS.accessTokenPastExpiryMs);
  const refreshCut = new Date(now.getTime() - PRUNE_HORIZONS.refreshTokenPastExpiryMs);
  const codeCut = new Date(now.getTime() - PRUNE_HORIZONS.codePastExpiryMs);
  const revokedCut = new Date(now.getTime() - PRUNE_HORIZONS.revokedGrantMs);
  const integrationCut = new Date(now.getTime() - PRUNE_HORIZONS.integrationTokenStoppedMs);
  const eventCut = webhookEventRetentionCutoff(now);

  return [
    {
      name: "expired access tokens",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT a.jti AS id FROM "AccessToken" a
          WHERE a."expiresAt" < ${accessCut} ${grantScope(Prisma.sql`a."grantId"`)}
          ORDER BY a."expiresAt" LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const accessTokens = await tx.$executeRaw`
          DELETE FROM "AccessToken" WHERE jti = ANY(${rows.map((r) => r.id)}::text[]) AND "expiresAt" < ${accessCut}`;
        return { selected: rows.length, deleted: { accessTokens } };
      },
    },
    {
      name: "expired refresh tokens and the grants they leave empty",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string; grantId: string }[]>`
          SELECT r.id, r."grantId" FROM "RefreshToken" r
          WHERE r."expiresAt" < ${refreshCut} ${grantScope(Prisma.sql`r."grantId"`)}
          ORDER BY r."expiresAt" LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const refreshTokens = await tx.$executeRaw`
          DELETE FROM "RefreshToken" WHERE id = ANY(${rows.map((r) => r.id)}::text[]) AND "expiresAt" < ${refreshCut}`;
        // Every token such a grant issued expired long ago (the last refresh token a year after
        // it was issued, its access token a day after): the grant cannot answer anything any more.
        const grants = await deleteGrantsWithoutTokens(tx, [...new Set(rows.map((r) => r.grantId))]);
        return { selected: rows.length, deleted: { refreshTokens, grants } };
      },
    },
    {
      name: "refresh tokens of families revoked long ago",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT r.id FROM "TokenGrant" g JOIN "RefreshToken" r ON r."grantId" = g.id
          WHERE g."revokedAt" < ${revokedCut} ${scoped(companyIds, Prisma.sql`AND g."companyId" = ANY(${ids}::text[])`)}
          LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const refreshTokens = await tx.$executeRaw`
          DELETE FROM "RefreshToken" WHERE id = ANY(${rows.map((r) => r.id)}::text[])`;
        return { selected: rows.length, deleted: { refreshTokens } };
      },
    },
    {
      name: "access tokens of families revoked long ago",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT a.jti AS id FROM "TokenGrant" g JOIN "AccessToken" a ON a."grantId" = g.id
          WHERE g."revokedAt" < ${revokedCut} ${scoped(companyIds, Prisma.sql`AND g."companyId" = ANY(${ids}::text[])`)}
          LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const accessTokens = await tx.$executeRaw`
          DELETE FROM "AccessToken" WHERE jti = ANY(${rows.map((r) => r.id)}::text[])`;
        return { selected: rows.length, deleted: { accessTokens } };
      },
    },
    {
      name: "families revoked long ago",
      async run(tx, limit) {
        // The two steps above emptied them (a revoked grant is never issued tokens again).
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT g.id FROM "TokenGrant" g
          WHERE g."revokedAt" < ${revokedCut} ${scoped(companyIds, Prisma.sql`AND g."companyId" = ANY(${ids}::text[])`)}
            AND NOT EXISTS (SELECT 1 FROM "RefreshToken" r WHERE r."grantId" = g.id)
            AND NOT EXISTS (SELECT 1 FROM "AccessToken" a WHERE a."grantId" = g.id)
          LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const grants = await deleteGrantsWithoutTokens(
          tx,
          rows.map((r) => r.id),
        );
        return { selected: rows.length, deleted: { grants } };
      },
    },
    {
      name: "authorization codes long expired",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT c.id FROM "AuthorizationCode" c
          WHERE c."expiresAt" < ${codeCut} ${scoped(
            companyIds,
            Prisma.sql`AND c."installationId" IN (SELECT id FROM "Installation" WHERE "companyId" = ANY(${ids}::text[]))`,
          )}
          ORDER BY c."expiresAt" LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        // Grants issued from them keep working: their authorizationCodeId becomes null (ON DELETE SET NULL).
        const codes = await tx.$executeRaw`
          DELETE FROM "AuthorizationCode" WHERE id = ANY(${rows.map((r) => r.id)}::text[]) AND "expiresAt" < ${codeCut}`;
        return { selected: rows.length, deleted: { codes } };
      },
    },
    {
      name: "private-integration tokens that stopped working long ago",
      async run(tx, limit) {
        const stopped = Prisma.sql`(t.slot IS NULL OR t."revokedAt" IS NOT NULL)
          AND COALESCE(LEAST(t."revokedAt", t."expiresAt"), t."createdAt") < ${integrationCut}`;
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT t.id FROM "PrivateIntegrationToken" t
          WHERE ${stopped} ${scoped(
            companyIds,
            Prisma.sql`AND t."integrationId" IN (SELECT id FROM "PrivateIntegration" WHERE "companyId" = ANY(${ids}::text[]))`,
          )}
          LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const integrationTokens = await tx.$executeRaw`
          DELETE FROM "PrivateIntegrationToken" t WHERE t.id = ANY(${rows.map((r) => r.id)}::text[]) AND ${stopped}`;
        return { selected: rows.length, deleted: { integrationTokens } };
      },
    },
    {
      name: "webhook events past retention",
      async run(tx, limit) {
        const done = Prisma.sql`e.status IN ('delivered', 'failed') AND e."createdAt" < ${eventCut}`;
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT e.id FROM "WebhookEvent" e
          WHERE ${done} ${scoped(
            companyIds,
            Prisma.sql`AND e."appId" IN (SELECT id FROM "App" WHERE "companyId" = ANY(${ids}::text[]))`,
          )}
          ORDER BY e."createdAt" LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        // Their delivery logs go with them (ON DELETE CASCADE).
        const webhookEvents = await tx.$executeRaw`
          DELETE FROM "WebhookEvent" e WHERE e.id = ANY(${rows.map((r) => r.id)}::text[]) AND ${done}`;
        return { selected: rows.length, deleted: { webhookEvents } };
      },
    },
  ];
}

/** Deletes those of `grantIds` that have no refresh or access token left; returns how many. */
async function deleteGrantsWithoutTokens(tx: Tx, grantIds: string[]): Promise<number> {
  const empty = await tx.$queryRaw<{ id: string }[]>`
    SELECT g.id FROM "TokenGrant" g
    WHERE g.id = ANY(${grantIds}::text[])
      AND NOT EXISTS (SELECT 1 FROM "RefreshToken" r WHERE r."grantId" = g.id)
      AND NOT EXISTS (SELECT 1 FROM "AccessToken" a WHERE a."grantId" = g.id)`;
  if (empty.length === 0) return 0;
  return tx.$executeRaw`
    DELETE FROM "TokenGrant" g
    WHERE g.id = ANY(${empty.map((r) => r.id)}::text[])
      AND NOT EXISTS (SELECT 1 FROM "RefreshToken" r WHERE r."grantId" = g.id)
      AND NOT EXISTS (SELECT 1 FROM "AccessToken" a WHERE a."grantId" = g.id)`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One pruning run: every kind of row in turn, a batch at a time while batches come back full.
 * Returns what it deleted; `skipped` when another instance held the lock.
 */
export async function pruneOnce(options: PruneOptions = {}): Promise<PruneSummary> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  const pauseMs = options.pauseMs ?? PRUNE_PAUSE_MS;
  const summary: PruneSummary = {
    accessTokens: 0,
    refreshTokens: 0,
    grants: 0,
    codes: 0,
    integrationTokens: 0,
    webhookEvents: 0,
    batches: 0,
    skipped: false,
  };
  for (const step of steps(now, options.companyIds)) {
    for (;;) {
      if (options.stopped?.()) return summary;
      const outcome = await db().$transaction(async (tx) => {
        const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(hashtext(${LOCK})) AS locked`;
        if (!lock?.locked) return undefined;
        // Its deletes send no NOTIFY token_state (migration prune_sends_no_token_state).
        await tx.$queryRaw`SELECT set_config('maintenance.prune', 'on', true)`;
        return step.run(tx, batchSize);
      }, BATCH_TRANSACTION_OPTIONS);
      if (!outcome) {
        summary.skipped = true;
        return summary;
      }
      summary.batches += 1;
      for (const [kind, count] of Object.entries(outcome.deleted) as [keyof Counts, number][]) summary[kind] += count;
      // A full batch that deleted nothing (rows changed meanwhile) ends the step rather than spin.
      const deleted = Object.values(outcome.deleted).reduce((a, b) => a + b, 0);
      if (outcome.selected < batchSize || deleted === 0) break;
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------
// The loop started with the server (instrumentation.ts).

interface PrunerState {
  stopped: boolean;
  timer?: NodeJS.Timeout;
  running?: Promise<unknown>;
  intervalMs: number;
}

const holder = globalThis as typeof globalThis & { __pruner?: PrunerState };

/**
 * Prunes every PRUNE_INTERVAL_SECONDS on this instance (idempotent; nothing when it is 0). Every
 * instance may run it: the advisory lock lets one prune at a time.
 */
export function startPruner(options: { intervalMs?: number; firstRunDelayMs?: number } = {}): void {
  const intervalMs = options.intervalMs ?? env().PRUNE_INTERVAL_SECONDS * 1000;
  if (intervalMs <= 0 || (holder.__pruner && !holder.__pruner.stopped)) return;
  const state: PrunerState = { stopped: false, intervalMs };
  holder.__pruner = state;
  log.info("pruner started", { intervalMs });
  schedule(state, options.firstRunDelayMs ?? Math.min(FIRST_RUN_DELAY_MS, intervalMs));
}

/** Stops the loop and waits for a run in progress to end its batch. */
export async function stopPruner(): Promise<void> {
  const state = holder.__pruner;
  if (!state) return;
  state.stopped = true;
  clearTimeout(state.timer);
  await state.running?.catch(() => {});
  if (holder.__pruner === state) holder.__pruner = undefined;
}

function schedule(state: PrunerState, delayMs: number): void {
  if (state.stopped) return;
  state.timer = setTimeout(() => void tick(state), delayMs);
  state.timer.unref?.();
}

async function tick(state: PrunerState): Promise<void> {
  const run = pruneOnce({ stopped: () => state.stopped });
  state.running = run;
  try {
    const summary = await run;
    const { batches, skipped, ...deleted } = summary;
    if (Object.values(deleted).some((n) => n > 0))
      log.info("pruned expired and consumed rows", { ...deleted, batches });
    else if (skipped) log.debug("pruning skipped: another instance is pruning");
  } catch (error) {
    // Typically the database is unreachable; the next run tries again.
    log.error("pruning failed", { cause: describeError(error) });
  } finally {
    state.running = undefined;
    schedule(state, state.intervalMs);
  }
}
