import { json, otherMethods } from "@/lib/api/handler";
import { tokenRoute } from "@/lib/api/token-route";
import { getContact } from "@/lib/contacts/contacts";

/** GET /contacts/{contactId}: a contact of the token's own sub-account. */
export const GET = tokenRoute<{ contactId: string }>(
  { scope: "contacts.readonly", level: "Location" },
  async (_request, context) => json({ contact: await getContact(context.principal, context.params.contactId) }),
);
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
