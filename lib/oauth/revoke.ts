import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { isJwtShaped, verifyAccessToken } from "@/lib/tokens/access-token";
import { authenticateClient } from "./client-auth";
import { invalidRequest, unauthorizedClient } from "./errors";
import { revokeGrants } from "./grants/revoke-grants";
import { readOAuthForm } from "./token-endpoint";

/**
 * POST /oauth/revoke (RFC 7009). The client authenticates; an access token is revoked alone, a
 * refresh token takes its whole grant with it (§2.1: "SHOULD also invalidate all access tokens
 * based on the same authorization grant"). An unknown, expired or already revoked token is not an
 * error (§2.2); a token of another app is refused.
 */

export const tokenTypeHints = ["access_token", "refresh_token"] as const;

export function readTokenParams(form: Record<string, string>): { token: string; hint?: string } {
  if (!form.token) throw invalidRequest("token is required: the access or refresh token to act on.");
  const hint = form.token_type_hint;
  if (hint !== undefined && !(tokenTypeHints as readonly string[]).includes(hint)) {
    throw invalidRequest(`token_type_hint must be access_token or refresh_token, not "${hint.slice(0, 40)}".`);
  }
  return { token: form.token, hint };
}

const notYours = () =>
  unauthorizedClient("This token was issued to another app; only that app can revoke or inspect it.");

export async function revokeToken(request: Request, now = new Date()): Promise<void> {
  const form = await readOAuthForm(request);
  const client = await authenticateClient(request, form, { now });
  const { token } = readTokenParams(form);
  if (isJwtShaped(token)) {
    const result = await verifyAccessToken(token, now);
    if (!result.ok) return;
    if (result.principal.appId !== client.app.id) throw notYours();
    await changeCachedState(() =>
      db().accessToken.updateMany({
        where: { jti: result.principal.tokenId, revokedAt: null },
        data: { revokedAt: now },
      }),
    );
    return;
  }
  if (token.length > 200) return;
  const row = await db().refreshToken.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: { grantId: true, grant: { select: { appId: true } } },
  });
  if (!row) return;
  if (row.grant.appId !== client.app.id) throw notYours();
  await changeCachedState(() => db().$transaction((tx) => revokeGrants(tx, { id: row.grantId }, now)));
}
