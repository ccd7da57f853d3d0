import { z } from "zod";
import { apiRoute, json, noStore } from "@/lib/api/handler";
import { readJsonText } from "@/lib/api/parse";
import { routeMethods } from "@/lib/api/route-methods";
import {
  handleSecretScanningMatches,
  parseSecretScanningBody,
  secretScanningKeysUrl,
  verifyGithubSignature,
} from "@/lib/credentials/github-secret-scanning";
import { countCredentialsCall, credentialsCaller } from "@/lib/credentials/limit";

// GitHub's partner format as documented, with examples; the handler parses with parseSecretScanningBody.
const secretScanningReport = z
  .array(
    z.object({
      token: z.string(),
      type: z.string(),
      url: z.string().optional(),
      source: z.string().optional(),
    }),
  )
  .min(1)
  .max(100)
  .meta({
    examples: [
      [
        {
          token: "pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c",
          type: "platform_private_integration_token",
          url: "https://github.com/octo-org/docs/issues/12",
          source: "issue",
        },
      ],
    ],
  });
const secretScanningLabels = z
  .array(
    z.object({
      token_hash: z.string().regex(/^[0-9a-f]{64}$/),
      token_type: z.string(),
      label: z.enum(["true_positive", "false_positive"]),
    }),
  )
  .meta({
    examples: [
      [
        {
          token_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          token_type: "platform_private_integration_token",
          label: "true_positive",
        },
      ],
    ],
  });

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  /** POST /credentials/github-secret-scanning: GitHub's signed partner reports; live tokens revoked. */
  POST: apiRoute(
    {
      operationId: "githubSecretScanning",
      tag: "Leaked tokens",
      summary: "GitHub secret scanning partner reports",
      description:
        "GitHub's secret scanning partner format: a JSON array of {token, type, url, source}, signed with ECDSA P-256 and SHA-256 over the raw body; the key is named in the Github-Public-Key-Identifier header and the base64 DER signature is in Github-Public-Key-Signature. Keys come from SECRET_SCANNING_KEYS_URL (cached; an unknown key id fetches them again, at most once a second). The answer labels each token: true_positive when it was live (it is now revoked, as by /credentials/revoke), false_positive otherwise, with the SHA-256 of the token in hex. 404 while SECRET_SCANNING_KEYS_URL is unset. Counted with /credentials/revoke: 60 calls per hour per client address.",
      auth: "none",
      body: { contentType: "application/json", name: "SecretScanningReport", schema: secretScanningReport },
      success: {
        status: 200,
        description: "One label per reported token, in the order reported.",
        name: "SecretScanningLabels",
        schema: secretScanningLabels,
      },
      errors: {
        rate_limited: "More than 60 calls this hour from this address (Retry-After: seconds to the next hour).",
        not_found: "SECRET_SCANNING_KEYS_URL is not set on this server.",
        invalid_request: "Not JSON, or not an array of 1 to 100 {token, type, url, source}.",
        invalid_client:
          "The signature headers are missing, name no published key, or the signature does not verify over the body.",
      },
    },
    async (request) => {
      await countCredentialsCall(credentialsCaller(request.headers));
      secretScanningKeysUrl();
      const raw = await readJsonText(request);
      await verifyGithubSignature(raw, request.headers);
      return json(await handleSecretScanningMatches(parseSecretScanningBody(raw)), { headers: noStore });
    },
  ),
});
