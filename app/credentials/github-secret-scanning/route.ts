import { apiRoute, json, noStore, otherMethods } from "@/lib/api/handler";
import { readJsonText } from "@/lib/api/parse";
import {
  handleSecretScanningMatches,
  parseSecretScanningBody,
  secretScanningKeysUrl,
  verifyGithubSignature,
} from "@/lib/credentials/github-secret-scanning";
import { countCredentialsCall, credentialsCaller } from "@/lib/credentials/limit";

/** POST /credentials/github-secret-scanning: GitHub's signed partner reports; live tokens revoked. */
export const POST = apiRoute(async (request) => {
  await countCredentialsCall(credentialsCaller(request.headers));
  secretScanningKeysUrl();
  const raw = await readJsonText(request);
  await verifyGithubSignature(raw, request.headers);
  return json(await handleSecretScanningMatches(parseSecretScanningBody(raw)), { headers: noStore });
});
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
