// Over 250 lines on purpose: one step per kind of row, each with its horizon and the reason for it;
// the list is read as the table README › Pruning states.
import type { Tx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { USAGE_RETENTION_DAYS } from "@/lib/usage/read";
import { webhookEventRetentionCutoff } from "@/lib/webhooks/retention";

/**
 * What the pruner (prune.ts) deletes: one step per kind of row, each a batch of the rows that can
 * no longer change any answer. How long each kind of row is kept, and why (also in README):
 *
 * - Access tokens: 5 minutes past `exp`. Verification refuses an expired token before it reads the
 *   row (and a missing row is refused too), revocation of an unknown jti answers 200 as before and
 *   introspection says inactive either way. The 5 minutes only cover clock skew between instances.
 *   An installation token's grant (client_credentials: one access token, never a refresh token)
 *   goes with its access token: nothing else could ever be issued from it.
 * - Client assertions' `jti`s (private_key_jwt): once the assertion has expired. An expired
 *   assertion is refused for its `exp` before its `jti` is looked at, so the row proves nothing more.
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
 * - API usage counts (hours per integration or installation) and an integration's last refused
 *   request: 90 days (USAGE_RETENTION_DAYS, SPEC.md "Counts are kept 90 days"); the screens show 30.
 * - Idempotent answers (lib/idempotency/keys.ts): at their `expiresAt`, 24 hours after the
 *   request that wrote them (SPEC.md: a key is kept 24 hours). A key sent later runs as a new
 *   request (a claim takes over an expired row, so pruning late changes nothing).
 *
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
  usageMs: USAGE_RETENTION_DAYS * DAY_MS,
  /** The row's `expiresAt` already holds the clock tolerance past the assertion's `exp`. */
  clientAssertionPastExpiryMs: MINUTE_MS,
  /** The row's `expiresAt` is the end of the key's 24 hours. */
  idempotentAnswerPastExpiryMs: 0,
} as const;

/** What one run deleted, per kind of row. */
export interface PruneCounts {
  accessTokens: number;
  refreshTokens: number;
  grants: number;
  codes: number;
  integrationTokens: number;
  webhookEvents: number;
  /** Hours of API usage counts and last refused requests. */
  usage: number;
  /** Recorded `jti`s of client assertions (private_key_jwt). */
  clientAssertions: number;
  /** Answers kept for idempotency keys (creates and rotations, secrets, key pairs, recovery codes). */
  idempotentAnswers: number;
}

/** Every kind at zero: the compiler keeps this in step with PruneCounts. */
export function noneDeleted(): PruneCounts {
  return {
    accessTokens: 0,
    refreshTokens: 0,
    grants: 0,
    codes: 0,
    integrationTokens: 0,
    webhookEvents: 0,
    usage: 0,
    clientAssertions: 0,
    idempotentAnswers: 0,
  };
}

export interface PruneStep {
  name: string;
  /** One batch in `tx`: returns how many rows it looked at (full batch: run again) and what it deleted. */
  run(tx: Tx, limit: number): Promise<{ selected: number; deleted: Partial<PruneCounts> }>;
}

function scoped(companyIds: string[] | undefined, sql: Prisma.Sql): Prisma.Sql {
  return companyIds ? sql : Prisma.empty;
}

export function pruneSteps(now: Date, companyIds: string[] | undefined): PruneStep[] {
  const ids = companyIds ?? [];
  // Scoped runs: only rows whose `column` names a row of `table` that belongs to one of the agencies.
  const ownedBy = (column: Prisma.Sql, table: "TokenGrant" | "Installation" | "PrivateIntegration" | "App") =>
    scoped(
      companyIds,
      Prisma.sql`AND ${column} IN (SELECT id FROM ${Prisma.raw(`"${table}"`)} WHERE "companyId" = ANY(${ids}::text[]))`,
    );
  const grantScope = (column: Prisma.Sql) => ownedBy(column, "TokenGrant");
  const accessCut = new Date(now.getTime() - PRUNE_HORIZONS.accessTokenPastExpiryMs);
  const refreshCut = new Date(now.getTime() - PRUNE_HORIZONS.refreshTokenPastExpiryMs);
  const codeCut = new Date(now.getTime() - PRUNE_HORIZONS.codePastExpiryMs);
  const revokedCut = new Date(now.getTime() - PRUNE_HORIZONS.revokedGrantMs);
  const integrationCut = new Date(now.getTime() - PRUNE_HORIZONS.integrationTokenStoppedMs);
  const eventCut = webhookEventRetentionCutoff(now);
  const assertionCut = new Date(now.getTime() - PRUNE_HORIZONS.clientAssertionPastExpiryMs);
  const answerCut = new Date(now.getTime() - PRUNE_HORIZONS.idempotentAnswerPastExpiryMs);
  const stoppedToken = Prisma.sql`(t.slot IS NULL OR t."revokedAt" IS NOT NULL)
    AND COALESCE(LEAST(t."revokedAt", t."expiresAt"), t."createdAt") < ${integrationCut}`;
  const doneEvent = Prisma.sql`e.status IN ('delivered', 'failed') AND e."createdAt" < ${eventCut}`;
  const usageCut = new Date(now.getTime() - PRUNE_HORIZONS.usageMs);
  // Usage rows carry no company: scoped runs reach them through their integration or installation.
  const usageScope = (column: Prisma.Sql) =>
    scoped(
      companyIds,
      Prisma.sql`AND (${column} IN (SELECT id FROM "PrivateIntegration" WHERE "companyId" = ANY(${ids}::text[]))
        OR ${column} IN (SELECT id FROM "Installation" WHERE "companyId" = ANY(${ids}::text[])))`,
    );

  return [
    {
      name: "expired access tokens and the installation-token grants they leave empty",
      async run(tx, limit) {
        const rows = await tx.$queryRaw<{ id: string; grantId: string; installationToken: boolean }[]>`
          SELECT a.jti AS id, a."grantId", g."installationToken" FROM "AccessToken" a
          JOIN "TokenGrant" g ON g.id = a."grantId"
          WHERE a."expiresAt" < ${accessCut} ${grantScope(Prisma.sql`a."grantId"`)}
          ORDER BY a."expiresAt" LIMIT ${limit}`;
        if (rows.length === 0) return { selected: 0, deleted: {} };
        const accessTokens = await tx.$executeRaw`
          DELETE FROM "AccessToken" WHERE jti = ANY(${rows.map((r) => r.id)}::text[]) AND "expiresAt" < ${accessCut}`;
        const emptied = [...new Set(rows.filter((r) => r.installationToken).map((r) => r.grantId))];
        const grants = emptied.length > 0 ? await deleteGrantsWithoutTokens(tx, emptied) : 0;
        return { selected: rows.length, deleted: { accessTokens, grants } };
      },
    },
    {
      name: "client assertions past their expiry",
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "clientAssertions",
          Prisma.sql`
          SELECT c."appId" || ' ' || c.jti AS id FROM "ClientAssertion" c
          WHERE c."expiresAt" < ${assertionCut} ${ownedBy(Prisma.sql`c."appId"`, "App")}
          ORDER BY c."expiresAt" LIMIT ${limit}`,
          (rowIds) => Prisma.sql`
          DELETE FROM "ClientAssertion" c
          WHERE c."appId" || ' ' || c.jti = ANY(${rowIds}::text[]) AND c."expiresAt" < ${assertionCut}`,
        ),
    },
    {
      name: "idempotent answers past their 24 hours",
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "idempotentAnswers",
          // Keys are per actor, not per agency: a scoped run takes its agency's people and integrations.
          Prisma.sql`
          SELECT i."actorKey" || ' ' || i."key" AS id FROM "IdempotentAnswer" i
          WHERE i."expiresAt" < ${answerCut} ${scoped(
            companyIds,
            Prisma.sql`AND (i."actorKey" IN (SELECT 'user:' || id FROM "User" WHERE "companyId" = ANY(${ids}::text[]))
              OR i."actorKey" IN (SELECT 'integration:' || id FROM "PrivateIntegration" WHERE "companyId" = ANY(${ids}::text[])))`,
          )}
          ORDER BY i."expiresAt" LIMIT ${limit}`,
          (rowIds) => Prisma.sql`
          DELETE FROM "IdempotentAnswer" i
          WHERE i."actorKey" || ' ' || i."key" = ANY(${rowIds}::text[]) AND i."expiresAt" < ${answerCut}`,
        ),
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
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "refreshTokens",
          Prisma.sql`
          SELECT r.id FROM "TokenGrant" g JOIN "RefreshToken" r ON r."grantId" = g.id
          WHERE g."revokedAt" < ${revokedCut} ${scoped(companyIds, Prisma.sql`AND g."companyId" = ANY(${ids}::text[])`)}
          LIMIT ${limit}`,
          (rowIds) => Prisma.sql`DELETE FROM "RefreshToken" WHERE id = ANY(${rowIds}::text[])`,
        ),
    },
    {
      name: "access tokens of families revoked long ago",
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "accessTokens",
          Prisma.sql`
          SELECT a.jti AS id FROM "TokenGrant" g JOIN "AccessToken" a ON a."grantId" = g.id
          WHERE g."revokedAt" < ${revokedCut} ${scoped(companyIds, Prisma.sql`AND g."companyId" = ANY(${ids}::text[])`)}
          LIMIT ${limit}`,
          (rowIds) => Prisma.sql`DELETE FROM "AccessToken" WHERE jti = ANY(${rowIds}::text[])`,
        ),
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
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "codes",
          Prisma.sql`
          SELECT c.id FROM "AuthorizationCode" c
          WHERE c."expiresAt" < ${codeCut} ${ownedBy(Prisma.sql`c."installationId"`, "Installation")}
          ORDER BY c."expiresAt" LIMIT ${limit}`,
          // Grants issued from them keep working: their authorizationCodeId becomes null (ON DELETE SET NULL).
          (rowIds) => Prisma.sql`
          DELETE FROM "AuthorizationCode" WHERE id = ANY(${rowIds}::text[]) AND "expiresAt" < ${codeCut}`,
        ),
    },
    {
      name: "private-integration tokens that stopped working long ago",
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "integrationTokens",
          Prisma.sql`
          SELECT t.id FROM "PrivateIntegrationToken" t
          WHERE ${stoppedToken} ${ownedBy(Prisma.sql`t."integrationId"`, "PrivateIntegration")}
          LIMIT ${limit}`,
          (rowIds) => Prisma.sql`
          DELETE FROM "PrivateIntegrationToken" t WHERE t.id = ANY(${rowIds}::text[]) AND ${stoppedToken}`,
        ),
    },
    {
      name: "webhook events past retention",
      run: (tx, limit) =>
        selectThenDelete(
          tx,
          "webhookEvents",
          Prisma.sql`
          SELECT e.id FROM "WebhookEvent" e
          WHERE ${doneEvent} ${ownedBy(Prisma.sql`e."appId"`, "App")}
          ORDER BY e."createdAt" LIMIT ${limit}`,
          // Their delivery logs go with them (ON DELETE CASCADE).
          (rowIds) => Prisma.sql`
          DELETE FROM "WebhookEvent" e WHERE e.id = ANY(${rowIds}::text[]) AND ${doneEvent}`,
        ),
    },
    {
      name: "API usage past retention",
      async run(tx, limit) {
        const hours = await tx.$executeRaw`
          DELETE FROM "ApiUsageHour" u WHERE (u."subjectType", u."subjectId", u."hour") IN (
            SELECT x."subjectType", x."subjectId", x."hour" FROM "ApiUsageHour" x
            WHERE x."hour" < ${usageCut} ${usageScope(Prisma.sql`x."subjectId"`)}
            ORDER BY x."hour" LIMIT ${limit})`;
        const refusals = await tx.$executeRaw`
          DELETE FROM "IntegrationLastRefusal" r WHERE r."integrationId" IN (
            SELECT x."integrationId" FROM "IntegrationLastRefusal" x
            WHERE x."at" < ${usageCut} ${usageScope(Prisma.sql`x."integrationId"`)} LIMIT ${limit})`;
        return { selected: Math.max(hours, refusals), deleted: { usage: hours + refusals } };
      },
    },
  ];
}

/**
 * The usual batch: `select` picks up to a batch of ids (column `id`), and `remove` deletes those,
 * re-checking the condition they were picked by (a row may have changed meanwhile).
 */
async function selectThenDelete(
  tx: Tx,
  kind: keyof PruneCounts,
  select: Prisma.Sql,
  remove: (ids: string[]) => Prisma.Sql,
): ReturnType<PruneStep["run"]> {
  const rows = await tx.$queryRaw<{ id: string }[]>(select);
  if (rows.length === 0) return { selected: 0, deleted: {} };
  const deleted = await tx.$executeRaw(remove(rows.map((r) => r.id)));
  return { selected: rows.length, deleted: { [kind]: deleted } };
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
