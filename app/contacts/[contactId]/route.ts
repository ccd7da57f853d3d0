import { z } from "zod";
import { json } from "@/lib/api/handler";
import { exampleId, tokenErrors } from "@/lib/api/openapi/operation";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { contactSchema, getContact } from "@/lib/contacts/contacts";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** GET /contacts/{contactId}: a contact of the token's own sub-account. */
  GET: tokenRoute<{ contactId: string }>(
    {
      scope: "contacts.readonly",
      level: "Location",
      operationId: "getContact",
      tag: "Contacts",
      summary: "Get a contact",
      description: "A contact of the token's own sub-account; any other id is 404.",
      pathParams: z.object({ contactId: exampleId("cm3x5con0000001") }),
      success: {
        status: 200,
        description: "The contact.",
        name: "ContactResponse",
        schema: z.object({ contact: contactSchema }),
      },
      errors: tokenErrors("contacts.readonly", "An agency-level token: use a Location token.", {
        not_found: "No contact with this id in the token's sub-account.",
      }),
    },
    async (_request, context) => json({ contact: await getContact(context.principal, context.params.contactId) }),
  ),
});
