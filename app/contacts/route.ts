import { z } from "zod";
import { json } from "@/lib/api/handler";
import { tokenErrors } from "@/lib/api/openapi/operation";
import { parseJson } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import { tokenRoute } from "@/lib/api/token-route";
import { contactSchema, createContact, newContactSchema } from "@/lib/contacts/contacts";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /contacts/: a contact in the token's own sub-account. */
  POST: tokenRoute(
    {
      scope: "contacts.write",
      level: "Location",
      operationId: "createContact",
      tag: "Contacts",
      summary: "Create a contact",
      description:
        "Allowed: a Location token or sub-account private integration of the body's locationId. A Company token or agency private integration gets 403 forbidden: exchange it for a Location token at POST /oauth/locationToken. POST /contacts answers the same, without a redirect.",
      trailingSlash: true,
      body: { contentType: "application/json", name: "NewContact", schema: newContactSchema },
      success: {
        status: 201,
        description: "The contact was created.",
        name: "ContactResponse",
        schema: z.object({ contact: contactSchema }),
      },
      errors: tokenErrors(
        "contacts.write",
        "An agency-level token (checked before the scope), or locationId is not the token's sub-account (checked after the body).",
        {
          invalid_request: "The body is not JSON, has a missing, extra or invalid field (named), or is over 1 MB.",
          conflict: "A contact with this e-mail exists in the sub-account; contactId is its id.",
        },
      ),
    },
    async (request, { principal }) => {
      const input = await parseJson(request, newContactSchema);
      return json({ contact: await createContact(principal, input) }, { status: 201 });
    },
  ),
});
