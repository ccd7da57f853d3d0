import { z } from "zod";
import { db } from "@/lib/db/client";
import { invalid, type Refusal } from "@/lib/refusal";
import { WEBHOOK_EVENT_RETENTION_DAYS } from "./retention";

/**
 * GET /webhooks/events (SPEC.md, Webhooks › Missed events): an app lists its own events oldest
 * first, a page at a time, to catch up after being down for longer than the retries.
 *
 * Order and cursor. Events are listed by (writerXid, id): the PostgreSQL transaction that wrote
 * the event (xid8, a column default), then the id. Only events of transactions older than every
 * transaction still running are listed (`writerXid < pg_snapshot_xmin(pg_current_snapshot())`):
 * a transaction still running has a larger xid than anything listed, so an event that commits
 * after a page was read always sorts after that page's cursor and is never skipped. Ordering by
 * createdAt alone would skip it (its createdAt is set before it commits). The price: an event shows
 * up once the longest transaction that began before its own has ended (milliseconds here).
 *
 * The cursor is opaque: base64url of "<writerXid>.<id>" of the last event of the page. `after`
 * also takes a webhookId, so an app that reached the end (no nextCursor) resumes later from the
 * last event it processed.
 */

export const MISSED_EVENTS_DEFAULT_LIMIT = 100;
export const MISSED_EVENTS_MAX_LIMIT = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POSITION = /^(-?\d{1,19})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

export const missedEventsQuerySchema = z.strictObject({
  after: z
    .string()
    .max(200)
    .optional()
    .meta({
      description:
        "nextCursor of the previous page, or the webhookId of the last event you processed. Absent: from the oldest event kept.",
      examples: ["MTIzNDUuMGQ0ZjFhMmUtN2I5Yy00YzFlLTlmM2UtNWE2YjdjOGQ5ZTBm"],
    }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be a whole number from 1 to 500")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(MISSED_EVENTS_MAX_LIMIT, "must be at most 500"))
    .optional()
    .meta({ description: "Events per page, 1 to 500.", examples: ["100"] }),
});
export type MissedEventsQuery = z.infer<typeof missedEventsQuerySchema>;

const examplePayload = {
  type: "INSTALL",
  appId: "cm3x5app0000001",
  versionId: "cm3x5ver0000001",
  installType: "Location",
  locationId: "cm3x5loc0000001",
  companyId: "cm3x5cmp0000001",
  userId: "cm3x5usr0000001",
  companyName: "Acme Agency",
  isWhitelabelCompany: false,
  whitelabelDetails: { logoUrl: null, domain: null },
  timestamp: "2026-01-15T09:30:00.000Z",
  webhookId: "0d4f1a2e-7b9c-4c1e-9f3e-5a6b7c8d9e0f",
};

export const missedEventSchema = z
  .object({
    webhookId: z.uuid().meta({ description: "The event's id: webhook-id header and payload.webhookId." }),
    type: z.string().meta({ examples: ["INSTALL"] }),
    createdAt: z.iso.datetime().meta({ examples: ["2026-01-15T09:30:00.000Z"] }),
    status: z.enum(["pending", "delivered", "failed"]).meta({
      description: "pending: not delivered yet (retries go on); delivered; failed: the retries gave up.",
    }),
    attempts: z.number().int().meta({ description: "Delivery attempts of the current retry series." }),
    payload: z
      .record(z.string(), z.unknown())
      .meta({ description: "The body exactly as delivered (or to be delivered)." }),
  })
  .meta({ description: "One app event." });
export type MissedEvent = z.infer<typeof missedEventSchema>;

export const missedEventsPageSchema = z
  .object({
    events: z.array(missedEventSchema),
    nextCursor: z.string().optional().meta({ description: "Pass as after for the next page; absent at the end." }),
  })
  .meta({
    description: `The app's events, oldest first. Events are kept at least ${WEBHOOK_EVENT_RETENTION_DAYS} days.`,
    examples: [
      {
        events: [
          {
            webhookId: examplePayload.webhookId,
            type: "INSTALL",
            createdAt: examplePayload.timestamp,
            status: "failed",
            attempts: 14,
            payload: examplePayload,
          },
        ],
        nextCursor: "MTIzNDUuMGQ0ZjFhMmUtN2I5Yy00YzFlLTlmM2UtNWE2YjdjOGQ5ZTBm",
      },
    ],
  });
export type MissedEventsPage = z.infer<typeof missedEventsPageSchema>;

interface Position {
  writerXid: string;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.writerXid}.${position.id}`, "utf8").toString("base64url");
}

function badAfter(): Refusal {
  return invalid(
    "after is not a cursor of this endpoint: pass nextCursor exactly as received, or the webhookId of one of your app's events.",
    "after",
  );
}

function decodeCursor(cursor: string): Position {
  if (!CURSOR.test(cursor)) throw badAfter();
  const match = POSITION.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw badAfter();
  return { writerXid: match[1]!, id: match[2]! };
}

async function positionOf(appId: string, after: string): Promise<Position> {
  if (!UUID.test(after)) return decodeCursor(after);
  const rows = await db().$queryRaw<Position[]>`
    SELECT "writerXid"::text AS "writerXid", id FROM "WebhookEvent" WHERE id = ${after} AND "appId" = ${appId}`;
  const row = rows[0];
  if (!row) {
    throw invalid(
      `after names no event of this app (events are kept at least ${WEBHOOK_EVENT_RETENTION_DAYS} days); start again without after.`,
      "after",
    );
  }
  return row;
}

interface EventRow {
  webhookId: string;
  type: string;
  createdAt: Date;
  status: MissedEvent["status"];
  attempts: number;
  payload: string;
  writerXid: string;
}

/** One page of `appId`'s events after `query.after`, oldest first. */
export async function listMissedEvents(appId: string, query: MissedEventsQuery): Promise<MissedEventsPage> {
  const limit = query.limit ?? MISSED_EVENTS_DEFAULT_LIMIT;
  const from = query.after === undefined ? undefined : await positionOf(appId, query.after);
  // One more than asked, to know whether there is a next page.
  const rows = from
    ? await db().$queryRaw<EventRow[]>`
        SELECT id AS "webhookId", type, "createdAt", status::text AS status, attempts,
               payload::text AS payload, "writerXid"::text AS "writerXid"
        FROM "WebhookEvent"
        WHERE "appId" = ${appId}
          AND "writerXid" < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
          AND ("writerXid", id) > (${from.writerXid}::bigint, ${from.id})
        ORDER BY "writerXid", id
        LIMIT ${limit + 1}`
    : await db().$queryRaw<EventRow[]>`
        SELECT id AS "webhookId", type, "createdAt", status::text AS status, attempts,
               payload::text AS payload, "writerXid"::text AS "writerXid"
        FROM "WebhookEvent"
        WHERE "appId" = ${appId}
          AND "writerXid" < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint
        ORDER BY "writerXid", id
        LIMIT ${limit + 1}`;
  const page = rows.slice(0, limit);
  const events = page.map((row) => ({
    webhookId: row.webhookId,
    type: row.type,
    createdAt: new Date(row.createdAt).toISOString(),
    status: row.status,
    attempts: Number(row.attempts),
    // The json column's text is the body that is signed and sent, keys in the same order.
    payload: JSON.parse(row.payload) as Record<string, unknown>,
  }));
  const last = page.at(-1);
  return rows.length > limit && last
    ? { events, nextCursor: encodeCursor({ writerXid: last.writerXid, id: last.webhookId }) }
    : { events };
}
