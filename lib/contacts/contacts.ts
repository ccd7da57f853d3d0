import { z } from "zod";
import { db } from "@/lib/db/client";
import { PREPARED } from "@/lib/db/prepared";
import { newRowId } from "@/lib/db/row-id";
import type { Prisma } from "@/lib/generated/prisma/client";
import { conflict, forbidden, notFound, type Refusal } from "@/lib/refusal";
import { locationOf, type Principal } from "@/lib/tokens/principal";

/** E.164: a plus, a country code not starting with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{1,14}$/;

const name = (example: string) =>
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100, { error: "must be at most 100 characters" })
    .meta({ examples: [example] });

export const newContactSchema = z
  .strictObject({
    firstName: name("Ada"),
    lastName: name("Lovelace"),
    email: z
      .email({ error: "must be an e-mail address such as ada@example.com" })
      .max(254, { error: "must be at most 254 characters" })
      .transform((v) => v.toLowerCase())
      .meta({ description: "Stored in lower case; unique within the sub-account.", examples: ["ada@example.com"] }),
    phone: z
      .string({ error: "must be a string" })
      .regex(E164, { error: "must be in E.164 format: + then country code and number, digits only, e.g. +14155550123" })
      .meta({ description: "E.164.", examples: ["+14155550123"] }),
    locationId: z
      .string({ error: "must be a string" })
      .min(1, { error: "must not be empty" })
      .max(100, { error: "must be at most 100 characters" })
      .meta({ description: "The sub-account of the token.", examples: ["cm3x5loc0000001"] }),
  })
  .meta({ description: "A new contact of the token's sub-account." });
export type NewContact = z.output<typeof newContactSchema>;

/** A stored text field that may be empty (null), as the API shows it. */
const nullableText = (example: string) =>
  z
    .string()
    .nullable()
    .meta({ examples: [example] });

export const contactSchema = z
  .object({
    id: z.string().meta({ examples: ["cm3x5con0000001"] }),
    locationId: z.string().meta({ examples: ["cm3x5loc0000001"] }),
    firstName: nullableText("Ada"),
    lastName: nullableText("Lovelace"),
    email: nullableText("ada@example.com"),
    phone: nullableText("+14155550123"),
    createdAt: z.iso.datetime().meta({ examples: ["2026-01-15T09:30:00.000Z"] }),
  })
  .meta({ description: "A contact of a sub-account." });
export type ContactView = z.infer<typeof contactSchema>;

const contactSelect = {
  id: true,
  locationId: true,
  firstName: true,
  lastName: true,
  email: true,
  phone: true,
  createdAt: true,
} as const;

type ContactRow = Prisma.ContactGetPayload<{ select: typeof contactSelect }>;

function toView(row: ContactRow): ContactView {
  return { ...row, createdAt: row.createdAt.toISOString() };
}

/** A conflict carrying the id of the contact that already has this e-mail (SPEC.md's 409 body). */
function duplicate(contactId: string): Refusal {
  return conflict(
    "A contact with this email already exists in this sub-account; its id is in contactId. Update that contact instead.",
    "email",
    { contactId, meta: { contactId, matchingField: "email" } },
  );
}

/**
 * The token's sub-account. The routes refuse agency-level tokens before calling in (tokenRoute's
 * `level: "Location"`, with the way to get a Location token); this guards direct callers.
 */
function subAccountOf(principal: Principal): string {
  const locationId = locationOf(principal);
  if (!locationId) throw forbidden("Contacts belong to a sub-account: use a Location token.");
  return locationId;
}

/**
 * POST /contacts/: a Location token of the body's sub-account creates the contact. The e-mail is
 * unique per sub-account; a concurrent duplicate is caught by the unique index and answered alike.
 */
export async function createContact(
  principal: Principal,
  input: NewContact,
  now: Date = new Date(),
): Promise<ContactView> {
  const locationId = subAccountOf(principal);
  if (input.locationId !== locationId) {
    throw forbidden("This token belongs to another sub-account: locationId must be the token's own sub-account.");
  }
  // One statement: the insert, or the contact that already has this e-mail. A duplicate committed
  // after this statement's snapshot is seen by ON CONFLICT but not by the SELECT: read it after.
  const rows = await db().$queryRaw<(ContactRow & { duplicate: boolean })[]>`${PREPARED}
    WITH inserted AS (
      INSERT INTO "Contact" (id, "locationId", "firstName", "lastName", email, phone, "createdAt")
      VALUES (${newRowId()}, ${locationId}, ${input.firstName}, ${input.lastName}, ${input.email}, ${input.phone},
              ${now.toISOString()}::timestamp(3))
      ON CONFLICT ("locationId", email) DO NOTHING
      RETURNING id, "locationId", "firstName", "lastName", email, phone, "createdAt"
    )
    SELECT *, false AS duplicate FROM inserted
    UNION ALL
    SELECT c.id, c."locationId", c."firstName", c."lastName", c.email, c.phone, c."createdAt", true AS duplicate
    FROM "Contact" c
    WHERE c."locationId" = ${locationId} AND c.email = ${input.email} AND NOT EXISTS (SELECT 1 FROM inserted)`;
  const row = rows[0];
  if (row && !row.duplicate) {
    const { duplicate: _, ...contact } = row;
    return toView({ ...contact, createdAt: new Date(contact.createdAt) });
  }
  const existing =
    row ??
    (await db().contact.findUnique({
      where: { locationId_email: { locationId, email: input.email } },
      select: { id: true },
    }));
  if (!existing) throw new Error("The contact was neither inserted nor found.");
  throw duplicate(existing.id);
}

/** GET /contacts/{contactId}: a contact of the token's own sub-account; any other id is 404. */
export async function getContact(principal: Principal, contactId: string): Promise<ContactView> {
  const locationId = subAccountOf(principal);
  const row = await db().contact.findFirst({ where: { id: contactId, locationId }, select: contactSelect });
  if (!row) throw notFound("No contact with this id exists in this token's sub-account.");
  return toView(row);
}
