import { runStatement } from "@/lib/db/hot-statement";
import { Prisma } from "@/lib/generated/prisma/client";
import { heldStatuses, integrationStatuses, statusCatalog } from "./catalog";
import { LIST_PAGE_SIZE, type ListOrder, type ListPage, type ListQuery } from "./list-page";
import {
  fromJson,
  type IntegrationRowJson,
  integrationRowColumns,
  integrationRowJoins,
  storedStatusSql,
  toIntegrationRows,
} from "./rows";
import {
  type AttentionKind,
  attentionKinds,
  EXPIRING_SOON_DAYS,
  ROTATION_DUE_DAYS,
  type StatusFilter,
  UNUSED_DAYS,
} from "./triage";
import type { IntegrationRow, TeamMemberName } from "./views";

/**
 * The page of the Private Integrations list that `listPage` (./list-page.ts) works out, worked out
 * by the database in one statement: the triage rules of ./triage.ts in SQL decide each
 * integration's status, its `Needs attention` kinds, the filter, the search and the order, so only
 * the page's rows are read and mapped, never every integration. list-page-read.test.ts proves the
 * two equal on generated integrations, clocks and queries; a change to a rule changes both.
 *
 * What SQL must do exactly as JavaScript does:
 * - lower case: `lower(… COLLATE "und-x-icu")` is ICU's full Unicode mapping, as `toLowerCase()`;
 * - `compareNames`: the `name_order` collation (a migration) is ICU's English, numeric, primary
 *   strength, as `Intl.Collator("en", { sensitivity: "base", numeric: true })`;
 * - instants as whole milliseconds since 1970 (`int8`), UTC days by floor division, as `Date`;
 * - ties: `listPage` sorts stably from the newest first, so the last keys are `createdAt`, `id` descending.
 */

const DAY_MS = 86_400_000;

/** A timestamp(3) column (UTC) as milliseconds since 1970, or null. */
const ms = (column: string) => Prisma.raw(`(extract(epoch FROM ${column}) * 1000)::int8`);

/** A list of the catalogue's statuses as SQL text literals (`'active', 'rotating'`). */
const statusList = (statuses: readonly string[]) => Prisma.raw(statuses.map((s) => `'${s}'`).join(", "));

/** The statuses whose tokens open the API (./catalog.ts `live`). */
const liveStatuses = statusList(integrationStatuses.filter((s) => statusCatalog[s].live));

/** The `Status` filter as a condition on the facts' columns (`inFilter`): a status is itself. */
const filterSql: Record<StatusFilter, Prisma.Sql> = {
  ...(Object.fromEntries(integrationStatuses.map((s) => [s, Prisma.sql`status = ${s}`])) as Record<
    (typeof integrationStatuses)[number],
    Prisma.Sql
  >),
  all: Prisma.sql`true`,
  "expiring-soon": Prisma.sql`is_expiring_soon`,
  "rotation-due": Prisma.sql`is_rotation_due`,
  unused: Prisma.sql`is_unused`,
};

/** `sortByUrgency`: the first kind a row is in, the date that orders that kind, the name. */
const urgencyOrder = Prisma.sql`rank, rank_at, name COLLATE name_order`;

/** Each order's keys (`listPage`: a column's order, its ties most urgent first), then newest first. */
const orderSql: Record<ListOrder, Prisma.Sql> = {
  urgency: urgencyOrder,
  "name-asc": Prisma.sql`name COLLATE name_order ASC, ${urgencyOrder}`,
  "name-desc": Prisma.sql`name COLLATE name_order DESC, ${urgencyOrder}`,
  "lastUsed-asc": Prisma.sql`last_used_ms ASC NULLS FIRST, ${urgencyOrder}`,
  "lastUsed-desc": Prisma.sql`last_used_ms DESC NULLS LAST, ${urgencyOrder}`,
  "expires-asc": Prisma.sql`expires_ms ASC NULLS LAST, ${urgencyOrder}`,
  "expires-desc": Prisma.sql`expires_ms DESC NULLS FIRST, ${urgencyOrder}`,
};

const attentionColumns: Record<AttentionKind, string> = {
  revoked: "is_revoked",
  expired: "is_expired",
  "expiring-soon": "is_expiring_soon",
  "rotation-due": "is_rotation_due",
  unused: "is_unused",
};

/**
 * The words of a search as `matchesSearch` reads them, or null when one can match nothing stored
 * (a lone surrogate or NUL, which no text in the database holds and PostgreSQL cannot take).
 */
function searchWords(search: string): string[] | null {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return words.some((w) => /\p{Cs}|\0/u.test(w)) ? null : words;
}

/**
 * The statement's one value: the counts, the page chosen and its rows, as JSON. One value, not a
 * row per integration: Prisma maps a raw result value by value, which cost more than the reading.
 */
interface PageJson {
  total: number;
  matching: number;
  page: number;
  /** The counts of `attentionKinds`, in their order. */
  attention: number[];
  rows: IntegrationRowJson[];
}

/** The counts of `Needs attention` over every integration, in the order of `attentionKinds`. */
const attentionCounts = Prisma.raw(
  `json_build_array(${attentionKinds.map((kind) => `count(*) FILTER (WHERE ${attentionColumns[kind]})`).join(", ")})`,
);

/**
 * One page of an owner's integrations as `listPage(all, triageFactsOfView, query, now, showing)`
 * answers it (`showingId`: the page that holds that integration, if it matches), in one statement.
 */
export async function readListPage(
  where: { companyId: string; locationId: string | null },
  query: ListQuery,
  now: Date,
  showingId?: string,
  pageSize = LIST_PAGE_SIZE,
): Promise<{ page: ListPage<IntegrationRow>; creators: Map<string, TeamMemberName> }> {
  const nowMs = now.getTime();
  const words = searchWords(query.search);
  const searching = words !== null && words.length > 0;
  const search =
    words === null
      ? Prisma.sql`false`
      : searching
        ? Prisma.sql`NOT EXISTS (SELECT 1 FROM unnest(${words}::text[]) w
            WHERE strpos(haystack, w) = 0 AND strpos(last_four, w) = 0)`
        : Prisma.sql`true`;
  // What the search reads, lower-cased only when there is a search (ICU's mapping is the costly part).
  const searched = searching
    ? Prisma.sql`lower(array_to_string(ARRAY[pi.name, pi.description] || pi.scopes, E'\\n') COLLATE "und-x-icu") AS haystack,
        lower(right(COALESCE(cur.hint, '—'), 4) COLLATE "und-x-icu") AS last_four`
    : Prisma.sql`'' AS haystack, '' AS last_four`;
  const statement = Prisma.sql`
    WITH facts AS (
      SELECT pi.id, pi.name, pi."createdAt", ${ms('pi."createdAt"')} AS created_ms,
        ${ms('pi."expiresAt"')} AS expires_ms,
        ${ms('COALESCE(cur."createdAt", pi."createdAt")')} AS token_ms,
        ${ms('GREATEST(cur."lastUsedAt", prev."lastUsedAt")')} AS last_used_ms,
        ${storedStatusSql("pi", Prisma.sql`prev.id IS NOT NULL`)} AS stored, ${searched}
      FROM "PrivateIntegration" pi
      LEFT JOIN "PrivateIntegrationToken" cur
        ON cur."integrationId" = pi.id AND cur.slot = 'current' AND cur."revokedAt" IS NULL
      LEFT JOIN "PrivateIntegrationToken" prev
        ON prev."integrationId" = pi.id AND prev.slot = 'previous' AND prev."revokedAt" IS NULL
          AND (prev."expiresAt" IS NULL OR ${ms('prev."expiresAt"')} > ${nowMs}::int8)
      WHERE pi."companyId" = ${where.companyId} AND pi."locationId" IS NOT DISTINCT FROM ${where.locationId}
    ), statuses AS (
      SELECT facts.*,
        CASE WHEN stored IN (${statusList(heldStatuses)}) THEN stored WHEN expires_ms <= ${nowMs}::int8 THEN 'expired'
          ELSE stored END AS status
      FROM facts
    ), kinds AS (
      SELECT statuses.*, (status = 'revoked') AS is_revoked, (status = 'expired') AS is_expired,
        (status IN (${liveStatuses}) AND expires_ms IS NOT NULL
          AND floor((expires_ms - 1) / ${DAY_MS}::numeric) - floor(${nowMs}::int8 / ${DAY_MS}::numeric)
            <= ${EXPIRING_SOON_DAYS}) AS is_expiring_soon,
        (status IN (${liveStatuses})
          AND ${nowMs}::int8 - token_ms >= ${ROTATION_DUE_DAYS * DAY_MS}::int8) AS is_rotation_due,
        (status <> 'revoked' AND created_ms <= ${nowMs - UNUSED_DAYS * DAY_MS}::int8
          AND (last_used_ms IS NULL OR last_used_ms < ${nowMs - UNUSED_DAYS * DAY_MS}::int8)) AS is_unused
      FROM statuses
    ), ranked AS (
      SELECT kinds.*,
        CASE WHEN is_revoked THEN 0 WHEN is_expired THEN 1 WHEN is_expiring_soon THEN 2
          WHEN is_rotation_due THEN 3 WHEN is_unused THEN 4 ELSE 5 END AS rank,
        CASE WHEN is_revoked THEN 0 WHEN is_expired THEN -expires_ms WHEN is_expiring_soon THEN expires_ms
          WHEN is_rotation_due THEN token_ms ELSE 0 END AS rank_at
      FROM kinds
    ), matching AS (
      SELECT id, (row_number() OVER (ORDER BY ${orderSql[query.order]}, "createdAt" DESC, id DESC) - 1)::int4 AS position
      FROM ranked WHERE ${filterSql[query.status]} AND ${search}
    ), counts AS (
      SELECT count(*)::int4 AS total, (SELECT count(*) FROM matching)::int4 AS matching,
        ${attentionCounts} AS attention,
        (SELECT position FROM matching WHERE id = ${showingId ?? null}) AS shown
      FROM ranked
    ), chosen AS (
      SELECT counts.*, COALESCE(shown / ${pageSize}::int4,
        LEAST(${query.page}::int4, GREATEST(ceil(matching / ${pageSize}::numeric)::int4, 1) - 1)) AS page
      FROM counts
    ), paged AS MATERIALIZED (
      -- The page's own ids first, so that only their rows are read.
      SELECT matching.id, matching.position FROM matching, chosen
      WHERE matching.position >= chosen.page * ${pageSize}::int4 AND matching.position < (chosen.page + 1) * ${pageSize}::int4
    )
    SELECT json_build_object('total', total, 'matching', matching, 'page', page, 'attention', attention,
      'rows', COALESCE((SELECT json_agg(page_rows ORDER BY page_rows.position) FROM (
        SELECT paged.position, ${integrationRowColumns}
        FROM paged
        JOIN "PrivateIntegration" pi ON pi.id = paged.id
        ${integrationRowJoins}
      ) page_rows), '[]')) AS page
    FROM chosen`;
  // Straight on the pool: Prisma's reading of a raw answer cost more than the statement.
  const [answer] = await runStatement<{ page: PageJson }>(statement.text, statement.values);
  // `chosen` is one row, whatever the page holds.
  const first = (answer as { page: PageJson }).page;
  const { rows, creators } = toIntegrationRows(first.rows.map(fromJson));
  const attention = attentionKinds
    .map((kind, i) => ({ kind, count: first.attention[i] ?? 0 }))
    .filter((line) => line.count > 0);
  return {
    page: {
      rows,
      attention,
      matching: first.matching,
      total: first.total,
      page: first.page,
      pageCount: Math.max(1, Math.ceil(first.matching / pageSize)),
    },
    creators,
  };
}
