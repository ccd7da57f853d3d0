import { json, otherMethods } from "@/lib/api/handler";
import { parseJson } from "@/lib/api/parse";
import { tokenRoute } from "@/lib/api/token-route";
import { createContact, newContactSchema } from "@/lib/contacts/contacts";

/** POST /contacts/: a contact in the token's own sub-account. */
export const POST = tokenRoute({ scope: "contacts.write", level: "Location" }, async (request, { principal }) => {
  const input = await parseJson(request, newContactSchema);
  return json({ contact: await createContact(principal, input) }, { status: 201 });
});
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
