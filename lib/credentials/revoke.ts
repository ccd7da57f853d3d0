import { z } from "zod";
import { hashSecret } from "@/lib/crypto/secrets";
import { revokeLeakedIntegrationTokens } from "@/lib/integrations/revoke-leaked";
import { isPrivateIntegrationToken } from "@/lib/integrations/token";
import { revokeLeakedRefreshTokens } from "@/lib/oauth/revoke-leaked";
import { notifyLeakedToken } from "./notify";

/**
 * Leaked tokens (SPEC.md › Private integrations under automation, and leaked tokens): whoever holds
 * a private-integration or refresh token may revoke it, and scanners report what they find.
 */

/** Longer than any token we issue; a longer string is malformed input, not a token. */
const MAX_TOKEN_LENGTH = 512;

/** `POST /credentials/revoke`'s body: 1 to 100 tokens. */
export const revokeCredentialsSchema = z
  .object({
    credentials: z
      .array(z.string().min(1).max(MAX_TOKEN_LENGTH), {
        message: 'must be an array of tokens (strings), for example ["pit-…"]',
      })
      .min(1, { message: "must hold at least 1 token" })
      .max(100, { message: "must hold at most 100 tokens; send more in further calls" }),
  })
  .strict();
export type RevokeCredentials = z.infer<typeof revokeCredentialsSchema>;

/** Which of the reported tokens were live (and are revoked now), by their index in the report. */
export interface LeakOutcome {
  revoked: boolean[];
}

/**
 * Revokes every live token of `tokens`: a private integration becomes `Revoked` (reason and time),
 * a refresh token's family is revoked. Unknown, dead and malformed tokens change nothing. Every
 * token is hashed and looked up the same way (one query per kind for the whole report), so the
 * time before any write does not depend on which are valid; what a write adds can only tell the
 * caller that a token was live, and it no longer is. Each revocation is audited in its
 * transaction and then notified (./notify.ts).
 */
export async function revokeLeakedCredentials(
  tokens: readonly string[],
  reason: string,
  now: Date = new Date(),
): Promise<LeakOutcome> {
  const hashes = tokens.map((token) => hashSecret(token));
  const integrationHashes = hashes.filter((_, i) => isPrivateIntegrationToken(tokens[i] ?? ""));
  const refreshHashes = hashes.filter((_, i) => !isPrivateIntegrationToken(tokens[i] ?? ""));
  const [integrations, families] = await Promise.all([
    revokeLeakedIntegrationTokens(integrationHashes, reason, now),
    revokeLeakedRefreshTokens(refreshHashes, reason, now),
  ]);
  // The notices carry ids and names, not the hash of the token.
  for (const { integrationId, companyId, locationId, name, tokenHint } of integrations) {
    const notice = { integrationId, companyId, locationId, name, tokenHint };
    await notifyLeakedToken({ kind: "private_integration", ...notice, reason, at: now });
  }
  for (const { grantId, appId, companyId, locationId } of families) {
    await notifyLeakedToken({ kind: "refresh_token", grantId, appId, companyId, locationId, reason, at: now });
  }
  const live = new Set([...integrations.map((r) => r.tokenHash), ...families.map((f) => f.tokenHash)]);
  return { revoked: hashes.map((hash) => live.has(hash)) };
}
