import { db, type Tx } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { heldStatuses, holdColumns, statusCatalog } from "./catalog";
import type { IntegrationRow, TeamMemberName } from "./views";

/**
 * The rows of one owner's integrations with their live tokens, chosen sub-accounts and creators,
 * in one statement: the screens' list is read in one round of queries, where Prisma's `include`
 * would wait for the integrations before asking for their tokens.
 */

/** The token columns a view reads (never the hash). */
export const tokenSelect = {
  id: true,
  slot: true,
  hint: true,
  createdAt: true,
  lastUsedAt: true,
  lastUsedAddress: true,
  rotatedOutAt: true,
  expiresAt: true,
  revokedAt: true,
  shownAt: true,
} as const;

/** Its moments (`…At`), which JSON carries as text. */
const TOKEN_DATES = Object.keys(tokenSelect).filter((column) => column.endsWith("At"));

const tokenJson = Prisma.raw(
  `json_build_object(${Object.keys(tokenSelect)
    .map((column) => `'${column}', t."${column}"`)
    .join(", ")})`,
);

/** A timestamp(3) column as json_build_object writes it: UTC without a zone. */
const utcDate = (value: unknown): Date | null => (typeof value === "string" ? new Date(`${value}Z`) : null);

export interface IntegrationRowRaw extends Omit<IntegrationRow, "tokens" | "chosenLocations"> {
  tokens: Record<string, unknown>[];
  chosenLocations: { locationId: string; name: string }[];
  creatorName: string | null;
  creatorRemoved: boolean | null;
  creatorIntegrationName: string | null;
}

/** A row of `integrationRowColumns` inside JSON (`json_agg`): its moments as text. */
export type IntegrationRowJson = Omit<IntegrationRowRaw, (typeof ROW_DATES)[number]> &
  Record<(typeof ROW_DATES)[number], string | null>;

/** The row's own moments (those that hold it in a status included); its tokens' are read by `toIntegrationRows`. */
const ROW_DATES = ["createdAt", "updatedAt", "expiresAt", ...holdColumns] as const;

/** A row read inside JSON, its moments as Dates (as a row of its own reads them). */
export function fromJson(row: IntegrationRowJson): IntegrationRowRaw {
  const out: Record<string, unknown> = { ...row };
  for (const column of ROW_DATES) out[column] = utcDate(row[column]);
  return out as unknown as IntegrationRowRaw;
}

/** A quoted column of the integration's row under `alias`, named by the catalogue (no input reaches it). */
const column = (alias: string, name: string) => `${alias}."${name}"`;

/**
 * The held status of the integration under `alias` (./catalog.ts: the first whose column is set),
 * or NULL when none is (`storedStatus` then reads the rotation).
 */
export function heldStatusSql(alias: string): Prisma.Sql {
  const whens = heldStatuses.map(
    (status) => `WHEN ${column(alias, statusCatalog[status].held.by)} IS NOT NULL THEN '${status}'`,
  );
  return Prisma.raw(whens.length ? `(CASE ${whens.join(" ")} END)` : "NULL::text");
}

/** `storedStatus` in SQL: the held status, else `rotating` where `rotating` (a condition) holds, else `active`. */
export function storedStatusSql(alias: string, rotating: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`COALESCE(${heldStatusSql(alias)}, CASE WHEN ${rotating} THEN 'rotating' ELSE 'active' END)`;
}

/** The columns that hold an integration in a status, for a select list. */
const holdColumnsSql = Prisma.raw(holdColumns.map((name) => column("pi", name)).join(", "));

/**
 * The columns of one row (`pi`): its own, its live tokens and chosen sub-accounts as JSON, and its
 * creator's name, with `integrationRowJoins` in the FROM clause.
 */
export const integrationRowColumns = Prisma.sql`pi.id, pi."companyId", pi."locationId", pi.name, pi.description, pi.scopes,
      pi."createdByUserId", pi."createdByIntegrationId", pi."createdAt", pi."updatedAt", pi."expiresAt",
      pi."allSubAccounts", pi."allowedIpAddresses", ${holdColumnsSql}, pi."revokedReason",
      COALESCE((SELECT json_agg(${tokenJson} ORDER BY t."createdAt", t.id) FROM "PrivateIntegrationToken" t
        WHERE t."integrationId" = pi.id AND t.slot IS NOT NULL), '[]') AS tokens,
      COALESCE((SELECT json_agg(json_build_object('locationId', l.id, 'name', l.name) ORDER BY l.name, l.id)
        FROM "PrivateIntegrationLocation" pl JOIN "Location" l ON l.id = pl."locationId"
        WHERE pl."integrationId" = pi.id), '[]') AS "chosenLocations",
      u.name AS "creatorName", (u."removedAt" IS NOT NULL) AS "creatorRemoved",
      (SELECT ci.name FROM "PrivateIntegration" ci WHERE ci.id = pi."createdByIntegrationId"
        AND ci."companyId" = pi."companyId") AS "creatorIntegrationName"`;

/**
 * The person of its agency who created `pi`. (An integration that created it through the API is a
 * subquery of the columns: joined, the planner scanned the agency's integrations once per row.)
 */
export const integrationRowJoins = Prisma.sql`LEFT JOIN "User" u ON u.id = pi."createdByUserId" AND u."companyId" = pi."companyId"`;

/** Rows as `integrationRowColumns` reads them, and the creators they name. */
export function toIntegrationRows(raw: readonly IntegrationRowRaw[]): {
  rows: IntegrationRow[];
  creators: Map<string, TeamMemberName>;
} {
  const creators = new Map<string, TeamMemberName>();
  const rows = raw.map(({ tokens, chosenLocations, creatorName, creatorRemoved, creatorIntegrationName, ...row }) => {
    if (row.createdByUserId && creatorName !== null) {
      creators.set(row.createdByUserId, {
        id: row.createdByUserId,
        name: creatorName,
        removed: Boolean(creatorRemoved),
      });
    }
    if (row.createdByIntegrationId && creatorIntegrationName !== null) {
      const id = row.createdByIntegrationId;
      creators.set(id, { id, name: creatorIntegrationName, removed: false, integration: true });
    }
    return {
      ...row,
      tokens: tokens.map((token) => {
        const out: Record<string, unknown> = { ...token };
        for (const column of TOKEN_DATES) out[column] = utcDate(token[column]);
        return out as unknown as IntegrationRow["tokens"][number];
      }),
      chosenLocations: chosenLocations.map((c) => ({ locationId: c.locationId, location: { name: c.name } })),
    };
  });
  return { rows, creators };
}

/** Newest first, as the screens list them. */
export async function integrationRowsOf(
  where: { companyId: string; locationId: string | null },
  client: Tx = db(),
): Promise<{ rows: IntegrationRow[]; creators: Map<string, TeamMemberName> }> {
  const raw = await client.$queryRaw<IntegrationRowRaw[]>`
    SELECT ${integrationRowColumns}
    FROM "PrivateIntegration" pi
    ${integrationRowJoins}
    WHERE pi."companyId" = ${where.companyId} AND pi."locationId" IS NOT DISTINCT FROM ${where.locationId}
    ORDER BY pi."createdAt" DESC, pi.id DESC`;
  return toIntegrationRows(raw);
}
