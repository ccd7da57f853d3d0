import { apiRoute, json, noStore, otherMethods } from "@/lib/api/handler";
import { parseJson } from "@/lib/api/parse";
import { countCredentialsCall, credentialsCaller } from "@/lib/credentials/limit";
import { revokeCredentialsSchema, revokeLeakedCredentials } from "@/lib/credentials/revoke";

/** POST /credentials/revoke: whoever holds a leaked token revokes it; 202 whatever the tokens were. */
export const POST = apiRoute(async (request) => {
  await countCredentialsCall(credentialsCaller(request.headers));
  const { credentials } = await parseJson(request, revokeCredentialsSchema);
  await revokeLeakedCredentials(credentials, "Reported as leaked through POST /credentials/revoke.");
  return json({ received: credentials.length }, { status: 202, headers: noStore });
});
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
