import { readForm } from "@/lib/api/parse";
import { authenticateClient } from "./client-auth";
import { invalidRequest, unsupportedGrantType } from "./errors";
import { authorizationCodeGrant, type GrantContext } from "./grants/authorization-code";
import { refreshTokenGrant } from "./grants/refresh-token";

/**
 * POST /oauth/token as node-oidc-provider reads it: an ordered checklist, then one module per
 * grant. Each step throws the RFC 6749 §5.2 error it stands for.
 *   1. the body is application/x-www-form-urlencoded, each parameter at most once (readForm)
 *   2. grant_type is present and one we support
 *   3. the client authenticates (form or HTTP Basic)
 *   4. the grant module checks its own parameters, consumes the code or refresh token and issues
 * `Cache-Control: no-store` is set on every answer by the route (RFC 6749 §5.1).
 */

const grants = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
} as const satisfies Record<string, (ctx: GrantContext) => Promise<Record<string, unknown>>>;

export type SupportedGrantType = keyof typeof grants;
export const supportedGrantTypes = Object.keys(grants) as SupportedGrantType[];

/** RFC 6749 §3.2: parameters sent without a value are treated as omitted. */
export async function readOAuthForm(request: Request): Promise<Record<string, string>> {
  const form = await readForm(request);
  return Object.fromEntries(Object.entries(form).filter(([, value]) => value !== ""));
}

function checkGrantType(form: Record<string, string>): SupportedGrantType {
  const grantType = form.grant_type;
  if (!grantType) {
    throw invalidRequest(`grant_type is required: use ${supportedGrantTypes.join(" or ")}.`);
  }
  if (!Object.hasOwn(grants, grantType)) {
    throw unsupportedGrantType(
      `grant_type "${grantType.slice(0, 40)}" is not supported; use ${supportedGrantTypes.join(" or ")}.`,
    );
  }
  return grantType as SupportedGrantType;
}

export async function tokenEndpoint(request: Request, now = new Date()): Promise<Record<string, unknown>> {
  const form = await readOAuthForm(request);
  const grantType = checkGrantType(form);
  const client = await authenticateClient(request, form);
  return grants[grantType]({ form, client, now });
}
