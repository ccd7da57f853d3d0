import { hashSecret } from "@/lib/crypto/secrets";
import type { Tx } from "@/lib/db/client";
import type { Scope } from "@/lib/scopes";
import type { ValidAuthorizeRequest } from "./validate";

/** Codes live 10 minutes (RFC 6749 §4.1.2 recommends at most 10) and are stored as a keyed hash. */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60_000;

/**
 * Stores the authorization code for the installation, bound to the redirect URI and PKCE challenge,
 * with the scopes the install granted (which may be fewer than the request asked for).
 */
export async function issueCode(
  tx: Tx,
  args: {
    code: string;
    request: ValidAuthorizeRequest;
    scopes: Scope[];
    installationId: string;
    userId: string;
    now: Date;
  },
): Promise<void> {
  const { code, request, now } = args;
  await tx.authorizationCode.create({
    data: {
      codeHash: hashSecret(code),
      appId: request.app.id,
      installationId: args.installationId,
      userId: args.userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge ?? null,
      scopes: args.scopes,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
      createdAt: now,
    },
  });
}
