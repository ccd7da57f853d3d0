import { decodeJwt } from "jose";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { isJwtShaped, verifyAccessToken } from "@/lib/tokens/access-token";
import { authenticateClient } from "./client-auth";
import { tokenScopes } from "./grants/issue";
import { readTokenParams } from "./revoke";
import { readOAuthForm } from "./token-endpoint";

/**
 * POST /oauth/introspect (RFC 7662). The client authenticates and learns about its own tokens
 * only: anything else, including another app's token, is `{"active": false}` (§2.2, §4).
 */

export async function introspectToken(request: Request, now = new Date()): Promise<Record<string, unknown>> {
  const form = await readOAuthForm(request);
  const client = await authenticateClient(request, form, { now });
  const { token } = readTokenParams(form);
  const inactive = { active: false };

  if (isJwtShaped(token)) {
    const result = await verifyAccessToken(token, now);
    if (!result.ok || result.principal.appId !== client.app.id) return inactive;
    const claims = decodeJwt(token);
    return {
      active: true,
      token_type: "Bearer",
      // What the token grants now: a scope its installation lost no longer counts (app versions).
      scope: result.principal.scopes.join(" "),
      client_id: claims.client_id,
      sub: claims.sub,
      iss: claims.iss,
      jti: claims.jti,
      iat: claims.iat,
      exp: claims.exp,
      versionId: claims.versionId,
      authClass: claims.authClass,
      authClassId: claims.authClassId,
      companyId: claims.companyId,
      ...(claims.locationId ? { locationId: claims.locationId } : {}),
    };
  }

  if (token.length > 200) return inactive;
  const row = await db().refreshToken.findUnique({
    where: { tokenHash: hashSecret(token) },
    include: { grant: { include: { installation: { select: { status: true, scopes: true } } } } },
  });
  if (
    !row ||
    row.grant.appId !== client.app.id ||
    row.consumedAt ||
    row.expiresAt.getTime() <= now.getTime() ||
    row.grant.revokedAt ||
    row.grant.installation.status !== "installed"
  ) {
    return inactive;
  }
  const { grant } = row;
  return {
    active: true,
    token_type: "refresh_token",
    scope: tokenScopes(grant.userType, grant.scopes, grant.installation.scopes).join(" "),
    client_id: client.app.clientId,
    sub: grant.userId,
    iss: appUrl(),
    iat: Math.floor(row.createdAt.getTime() / 1000),
    exp: Math.floor(row.expiresAt.getTime() / 1000),
    authClass: grant.userType,
    authClassId: grant.locationId ?? grant.companyId,
    companyId: grant.companyId,
    ...(grant.locationId ? { locationId: grant.locationId } : {}),
  };
}
